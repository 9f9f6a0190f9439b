// Chart formulas: `+ - * /`, parentheses, decimal numbers and series letters, parsed by a small
// recursive-descent parser into a tree and evaluated per bucket. Nothing reaches JavaScript's eval.

export type Formula =
  | { kind: 'number'; value: number }
  | { kind: 'letter'; letter: string }
  | { kind: 'negate'; operand: Formula }
  | { kind: 'binary'; operator: Operator; left: Formula; right: Formula }

type Operator = '+' | '-' | '*' | '/'

type Token = { kind: 'number'; value: number } | { kind: 'letter'; letter: string } | { kind: 'symbol'; symbol: string }

function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  const pattern = / *(?:(\d+(?:\.\d+)?)|([A-Z])|([-+*/()]))/y
  let index = 0
  while (index < text.length) {
    if (/^ *$/.test(text.slice(index))) break
    pattern.lastIndex = index
    const match = pattern.exec(text)
    if (!match) throw new Error(`unexpected "${text.slice(index).trim()[0]}" at position ${index + 1}`)
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: Number(match[1]) })
    else if (match[2] !== undefined) tokens.push({ kind: 'letter', letter: match[2] })
    else tokens.push({ kind: 'symbol', symbol: match[3] })
    index = pattern.lastIndex
  }
  return tokens
}

/** Parses a formula; throws an Error whose message says what is wrong. */
export function parseFormula(text: string): Formula {
  const tokens = tokenize(text)
  let position = 0
  const peek = () => tokens[position]
  const isSymbol = (symbol: string) => peek()?.kind === 'symbol' && (peek() as { symbol: string }).symbol === symbol

  /** Operands of `operand` joined by `operators`, from the left (`a - b - c` is `(a - b) - c`). */
  function leftJoined(operators: readonly Operator[], operand: () => Formula): Formula {
    let left = operand()
    for (;;) {
      const next = peek()
      const operator = operators.find((symbol) => next?.kind === 'symbol' && next.symbol === symbol)
      if (!operator) return left
      position += 1
      left = { kind: 'binary', operator, left, right: operand() }
    }
  }
  const expression = (): Formula => leftJoined(['+', '-'], term)
  const term = (): Formula => leftJoined(['*', '/'], factor)
  function factor(): Formula {
    const token = tokens[position++]
    if (!token) throw new Error('the formula ends too early')
    if (token.kind === 'number') return { kind: 'number', value: token.value }
    if (token.kind === 'letter') return { kind: 'letter', letter: token.letter }
    if (token.symbol === '-') return { kind: 'negate', operand: factor() }
    if (token.symbol === '(') {
      const inner = expression()
      if (!isSymbol(')')) throw new Error('a "(" is not closed')
      position += 1
      return inner
    }
    throw new Error(`unexpected "${token.symbol}"`)
  }

  if (tokens.length === 0) throw new Error('the formula is empty')
  const tree = expression()
  if (position < tokens.length)
    throw new Error(`unexpected "${JSON.stringify(tokens[position]).replace(/[{}"]/g, '')}" after a complete formula`)
  return tree
}

export function lettersOf(formula: Formula): string[] {
  switch (formula.kind) {
    case 'number':
      return []
    case 'letter':
      return [formula.letter]
    case 'negate':
      return lettersOf(formula.operand)
    case 'binary':
      return [...lettersOf(formula.left), ...lettersOf(formula.right)]
  }
}

/** The formula's value for one bucket; null on division by zero or a null input. */
export function evaluateFormula(formula: Formula, values: (letter: string) => number | null): number | null {
  switch (formula.kind) {
    case 'number':
      return formula.value
    case 'letter':
      return values(formula.letter)
    case 'negate': {
      const operand = evaluateFormula(formula.operand, values)
      return operand === null ? null : -operand
    }
    case 'binary': {
      const left = evaluateFormula(formula.left, values)
      const right = evaluateFormula(formula.right, values)
      if (left === null || right === null) return null
      switch (formula.operator) {
        case '+':
          return left + right
        case '-':
          return left - right
        case '*':
          return left * right
        case '/':
          return right === 0 ? null : left / right
      }
    }
  }
}
