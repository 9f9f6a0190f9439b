// Logging through winston: JSON lines for machines, or readable colored lines on a terminal
// (`LOG_FORMAT` = json | pretty; by default pretty when stderr is a terminal, JSON otherwise).
import winston from 'winston'

export type Logger = winston.Logger
export type LogFormat = 'json' | 'pretty'

const META_SKIP = new Set(['level', 'message', 'timestamp'])

/** `12:00:01.234 info  GET /insights/demo/metrics status=200 durationMs=42 requestId=…` */
export function prettyLine(info: winston.Logform.TransformableInfo, level = info.level): string {
  const time = String(info.timestamp ?? '').slice(11, 23)
  const fields = Object.entries(info)
    .filter(([key, value]) => !META_SKIP.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)}`)
  const padded = level + ' '.repeat(Math.max(0, 5 - info.level.length))
  return [time, padded, String(info.message), ...fields].filter(Boolean).join(' ')
}

function prettyFormat(colors: boolean): winston.Logform.Format {
  const colorizer = winston.format.colorize()
  return winston.format.printf((info) => prettyLine(info, colors ? colorizer.colorize(info.level, info.level) : info.level))
}

export function createLogger(level: string, silent = false, format: LogFormat = process.stderr.isTTY ? 'pretty' : 'json'): Logger {
  return winston.createLogger({
    level,
    silent,
    format: winston.format.combine(
      winston.format.timestamp(),
      format === 'json' ? winston.format.json() : prettyFormat(Boolean(process.stderr.isTTY)),
    ),
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
  })
}
