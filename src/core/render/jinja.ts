/**
 * Jinja2 templates (Prompty's default `template.format`) rendered with `@huggingface/jinja`, an
 * engine built to render untrusted chat templates: it interprets the template's syntax tree and
 * never turns template text into JavaScript. Values live in its own value types (maps and arrays
 * of wrapped values), so names and members are looked up in Maps: there is no prototype, no
 * `constructor`, no live engine object for a template to reach.
 *
 * Where Prompty's runtime (Python Jinja2, default options) and the library differ on what the
 * corpus uses, the difference is bridged here with the library's public pieces (tokenizer, parser,
 * interpreter, environment), never by handing the template a JavaScript object:
 *  - blocks are neither trimmed nor left-stripped (the library's `Template` turns both on);
 *  - `{% block name %}…{% endblock %}` in a template that extends nothing renders in place;
 *  - looping over an undefined value loops zero times, and printing a method (`item.title` of a
 *    string) prints nothing, as an undefined value would.
 * `range()` is capped; no string may grow past the rendered-size limit. Time and memory are
 * bounded by the caller (the render process, renderer.ts).
 */
import { Environment, Interpreter, parse, tokenize } from '@huggingface/jinja';
import type { EngineResult } from './engineResult';
import { MAX_RENDERED_CHARS, renderedSizeError } from './renderLimits';

export const RANGE_LIMIT = 10_000;

type RuntimeValue = ReturnType<Environment['lookupVariable']>;
type Statement = Parameters<Interpreter['evaluate']>[0] & object;
type Token = ReturnType<typeof tokenize>[number];

/** Python Jinja2's literal names; everything else comes from the data. */
const GLOBALS: Record<string, unknown> = { true: true, false: false, none: null, True: true, False: false, None: null };
/** Statement kinds the interpreter renders itself; any other node in a body is an expression it prints. */
const STATEMENTS = new Set(['Program', 'If', 'For', 'Set', 'Macro', 'Comment', 'Break', 'Continue', 'CallStatement', 'FilterStatement', 'StringLiteral']);

/**
 * `chatTemplate`: a model's chat template, rendered as Hugging Face's `apply_chat_template` does —
 * blocks trimmed and left-stripped, `raise_exception` (the template's own error, reported as the
 * render's) and `strftime_now` (Llama 3.x's date line) defined.
 */
export function renderJinja(template: string, data: Record<string, unknown>, chatTemplate = false): EngineResult {
  try {
    const program = parse(blocksInPlace(tokenize(template, { lstrip_blocks: chatTemplate, trim_blocks: chatTemplate })));
    const globals = new Environment();
    for (const [name, value] of Object.entries(GLOBALS)) globals.set(name, value);
    globals.set('range', cappedRange);
    if (chatTemplate) {
      globals.set('raise_exception', (message: unknown) => {
        throw new Error(`the chat template refused the messages: ${String(message)}`);
      });
      globals.set('strftime_now', strftimeNow);
    }
    const scope = new Environment(globals);
    for (const name of Object.keys(data)) scope.setVariable(name, runtimeValue(data[name]));
    const interpreter = new BoundedInterpreter(scope, program as Statement);
    const text = interpreter.run(program).value;
    if (typeof text !== 'string') return { error: 'the template did not render to text' };
    if (text.length > MAX_RENDERED_CHARS) return { error: renderedSizeError() };
    return { text, missing: [...interpreter.missing] };
  } catch (error) {
    // V8's own string-length limit (~512M characters) is the same limit reached later.
    if (error instanceof RangeError && /string length/i.test(error.message)) return { error: renderedSizeError() };
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The library's interpreter, plus: names that resolve to nothing are recorded (reported as
 * variables with no value); a string past the rendered-size limit stops the render as soon as it
 * is made (so a template doubling a string stops at 4 MB, not at the heap limit); undefined loop
 * sources and printed methods behave as in Jinja2/nunjucks (see the file comment).
 */
class BoundedInterpreter extends Interpreter {
  readonly missing = new Set<string>();
  private readonly loopSources = new WeakSet<object>();
  private readonly printed = new WeakSet<object>();
  private readonly empty: { array: () => RuntimeValue; undefined: () => RuntimeValue };

  constructor(scope: Environment, program: Statement) {
    super(scope);
    markNodes(program, this.loopSources, this.printed);
    this.empty = { array: () => runtimeValue([]), undefined: () => runtimeValue(undefined) };
    // Loop bodies accumulate in renderBlock, which `evaluate` does not see: check what each body adds.
    const self = this as unknown as { renderBlock: (statements: Statement[], environment: Environment) => string };
    const renderBlock = self.renderBlock.bind(this);
    self.renderBlock = (statements, environment) => boundedText(renderBlock(statements, environment));
  }

  override evaluate(statement: Statement | undefined, environment: Environment): RuntimeValue {
    const value = super.evaluate(statement, environment);
    if (!statement) return value;
    if (value.type === 'UndefinedValue') {
      if (statement.type === 'Identifier') this.missing.add((statement as unknown as { value: string }).value);
      if (this.loopSources.has(statement)) return this.empty.array();
    }
    if (value.type === 'FunctionValue' && this.printed.has(statement)) return this.empty.undefined();
    if (typeof value.value === 'string') boundedText(value.value);
    return value;
  }
}

function boundedText(text: string): string {
  if (text.length > MAX_RENDERED_CHARS) throw new Error(renderedSizeError());
  return text;
}

/** Records the nodes a `for` loops over and the expressions a body prints. */
function markNodes(node: unknown, loopSources: WeakSet<object>, printed: WeakSet<object>): void {
  if (Array.isArray(node)) {
    for (const child of node) markNodes(child, loopSources, printed);
    return;
  }
  if (node instanceof Map) {
    for (const [key, value] of node) {
      markNodes(key, loopSources, printed);
      markNodes(value, loopSources, printed);
    }
    return;
  }
  if (!node || typeof node !== 'object' || typeof (node as { type?: unknown }).type !== 'string') return;
  const fields = node as Record<string, unknown>;
  if (fields.type === 'For') {
    const source = fields.iterable as { type?: string; lhs?: object } | undefined;
    if (source) loopSources.add(source.type === 'SelectExpression' && source.lhs ? source.lhs : source);
  }
  for (const key of ['body', 'alternate', 'defaultBlock']) {
    const body = fields[key];
    if (Array.isArray(body)) for (const child of body) if (child && typeof child === 'object' && !STATEMENTS.has((child as { type: string }).type)) printed.add(child);
  }
  for (const value of Object.values(fields)) if (value && typeof value === 'object') markNodes(value, loopSources, printed);
}

/**
 * `{% block name %}` / `{% endblock [name] %}` → `{% if true %}` / `{% endif %}`: without `extends`,
 * Jinja2 renders a block's body where it stands; the library does not know the tag.
 */
function blocksInPlace(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const tag = tokens[i + 1];
    if (token.type === 'OpenStatement' && tag?.type === 'Identifier' && (tag.value === 'block' || tag.value === 'endblock')) {
      let end = i + 2;
      while (end < tokens.length && tokens[end]!.type === 'Identifier') end++;
      if (tokens[end]?.type === 'CloseStatement' && (tag.value === 'endblock' || end > i + 2)) {
        out.push(token, { ...tag, value: tag.value === 'block' ? 'if' : 'endif' });
        if (tag.value === 'block') out.push({ ...tag, value: 'true' });
        out.push(tokens[end]!);
        i = end;
        continue;
      }
    }
    out.push(token);
  }
  return out;
}

/**
 * Data (prototype-less objects and arrays, engineData.ts) as the engine's own values. The library's
 * converter walks arrays with `.map`, which a prototype-less array does not have, so containers are
 * made empty by the library and filled here; scalars go through the library's converter.
 */
function runtimeValue(value: unknown): RuntimeValue {
  const scratch = new Environment();
  const convert = (item: unknown): RuntimeValue => {
    scratch.variables.delete('value');
    if (Array.isArray(item)) {
      const array = scratch.set('value', []);
      for (let i = 0; i < item.length; i++) (array.value as RuntimeValue[]).push(convert(item[i]));
      return array;
    }
    if (item !== null && typeof item === 'object') {
      const object = scratch.set('value', {});
      for (const key of Object.keys(item)) (object.value as Map<string, RuntimeValue>).set(key, convert((item as Record<string, unknown>)[key]));
      return object;
    }
    // Data is JSON: a function never arrives here, and would be dropped if it did.
    return scratch.set('value', typeof item === 'function' ? undefined : item);
  };
  return convert(value);
}

/** The few `strftime` fields chat templates use (Llama 3.x: "%d %b %Y"), in UTC. */
function strftimeNow(format: unknown): string {
  const now = new Date();
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const fields: Record<string, string> = {
    d: String(now.getUTCDate()).padStart(2, '0'),
    m: String(now.getUTCMonth() + 1).padStart(2, '0'),
    Y: String(now.getUTCFullYear()),
    b: months[now.getUTCMonth()]!,
    B: now.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' }),
  };
  return String(format).replace(/%([dmYbB%])/g, (_, field: string) => (field === '%' ? '%' : fields[field]!));
}

function cappedRange(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined || stop === null ? [0, start] : [start, stop];
  if (![from, to, step].every((n) => typeof n === 'number' && Number.isFinite(n)) || step === 0) throw new Error('range() needs finite numbers and a non-zero step');
  const length = Math.max(0, Math.ceil((to - from) / step));
  if (length > RANGE_LIMIT) throw new Error(`range() of ${length} items refused (limit ${RANGE_LIMIT})`);
  return Array.from({ length }, (_, i) => from + i * step);
}
