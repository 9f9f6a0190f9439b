// JSON-lines logging through winston.
import winston from 'winston'

export type Logger = winston.Logger

export function createLogger(level: string, silent = false): Logger {
  return winston.createLogger({
    level,
    silent,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
  })
}
