/**
 * The grammar layer: text in, concrete syntax tree and syntax diagnostics out. Never throws on input.
 *
 * Steps: lex; check the tokens that need it (unterminated or malformed literals, nesting depth);
 * run the one parser instance with error recovery, handing each rule and item to the caller as
 * soon as it is parsed; turn every error into a diagnostic.
 */
import type { CstNode, IRecognitionException, IToken } from 'chevrotain';
import type { FileCst, ItemCst, RuleCst } from './cst.js';
import {
  isRealToken,
  lexDiagnostic,
  newContext,
  parserDiagnostic,
  TooManyErrors,
  SourceText,
  syntaxError,
  type Diagnostic,
  type ParseContext,
  type SoftError,
} from './errors.js';
import { decodeRegex, decodeString } from './literals.js';
import { PolicyParser } from './parser.js';
import * as T from './tokens.js';

export * from './cst.js';
export { quote, SourceText, isRealToken, syntaxError } from './errors.js';
export type { Diagnostic, Position, Severity, Span } from './errors.js';
export { decodeRegex, decodeString, durationMs, encodeString, numberValue } from './literals.js';
export type { LiteralProblem } from './literals.js';
export * as tokens from './tokens.js';
export type { CstNode, IToken } from 'chevrotain';

/** Brackets may nest this deep, and `not` may repeat this many times in a row. */
export const MAX_NESTING = 64;
/** At most this many diagnostics are reported, then one `parse/too-many-errors`. */
export const MAX_DIAGNOSTICS = 100;

export interface ParseResult {
  /** The tree; undefined only if the parser itself failed (reported as `parse/internal`). */
  cst: FileCst | undefined;
  diagnostics: Diagnostic[];
  /** The `#` comments, in order, for tools that keep them. */
  comments: IToken[];
  /** Offsets to positions in the parsed text. */
  source: SourceText;
}

interface Instance {
  parser: PolicyParser;
  context: ParseContext;
}

/**
 * The parser, built once, at the first parse (building it takes tens of milliseconds, which a
 * process that never parses need not pay), then reused by every parse. A parse started from
 * inside another (through `onItem`) needs one of its own: `instances[depth]`, also built once.
 */
const instances: Instance[] = [];
let depth = 0;

function instanceAt(level: number): Instance {
  let instance = instances[level];
  if (!instance) {
    const context = newContext();
    instance = { parser: new PolicyParser(context), context };
    instances[level] = instance;
  }
  return instance;
}

export interface ParseOptions {
  /**
   * Receives each top-level item as soon as it is parsed, in source order. The item's children are
   * released once the callback returns (the returned `cst` then holds emptied items), so that a large
   * file never needs its whole tree in memory.
   */
  onItem?: (item: ItemCst) => void;
  /**
   * Receives each rule of an `on` block as soon as it is parsed, before the block's item, and
   * releases the rule's children in the same way. A rule cut short by an error that reached its
   * block is not handed over: it stays in its item.
   */
  onRule?: (rule: RuleCst) => void;
}

/** Parses one policy file. */
export function parse(text: string, file: string, options: ParseOptions = {}): ParseResult {
  const source = new SourceText(text, file);
  const { onItem, onRule } = options;
  const items: ItemCst[] = [];
  const taken = new Set<ItemCst>();
  const take = (item: ItemCst): void => {
    if (taken.has(item)) return;
    taken.add(item);
    if (!onItem) {
      items.push(item);
      return;
    }
    onItem(item);
    release(item);
  };
  const diagnostics: Diagnostic[] = [];
  let comments: IToken[] = [];
  let cst: FileCst | undefined;
  let tokens: IToken[] = [];
  let tokenCount = 0;
  const { parser, context } = instanceAt(depth);
  depth++;
  try {
    const lexed = lexPolicy(text, source, diagnostics);
    comments = lexed.comments;
    const nested = lexed.nested;
    tokens = nested.tokens;
    tokenCount = tokens.length;

    context.frames = [];
    context.source = source;
    context.tokens = tokens;
    context.tokenCount = tokenCount;
    context.errorCount = 0;
    context.soft = [];
    context.onItem = take as (item: CstNode) => void;
    context.onRule =
      onRule &&
      ((rule: CstNode) => {
        onRule(rule as RuleCst);
        release(rule);
      });
    parser.input = tokens;
    try {
      const whole = parser.file() as FileCst;
      // an item cut short by an error that reached the top level is not handed over as it ends
      for (const item of whole.children.item ?? []) take(item);
    } catch (e) {
      if (!(e instanceof TooManyErrors)) throw e;
      diagnostics.push(stopDiagnostic(e, source, tokens[tokenCount - 1]));
    }
    cst = { name: 'file', children: { item: items } } as FileCst;
    diagnostics.push(...parserDiagnostics(parser.errors, context.soft, source, nested));
  } catch (e) {
    diagnostics.push(internalError(e, source));
  } finally {
    context.frames = [];
    context.tokens = [];
    context.tokenCount = 0;
    context.onItem = undefined;
    context.onRule = undefined;
    context.soft = [];
    // a parse stopped midway leaves the parser's end-of-input padding on the token array
    tokens.length = tokenCount;
    parser.input = [];
    depth--;
  }
  return { cst, diagnostics: capDiagnostics(diagnostics), comments, source };
}

/** Empties a node once it is handed over, so that only what the caller keeps of it stays in memory. */
function release(node: CstNode): void {
  (node as { children: CstNode['children'] }).children = {};
}

export interface LexResult {
  /** The tokens the parser reads (brackets nested too deep dropped). */
  tokens: IToken[];
  comments: IToken[];
  nested: Nested;
}

/**
 * The lexing steps of `parse`: the tokens, with every problem found before parsing (characters
 * that start no token, bad literals, nesting too deep) added to `diagnostics`.
 */
export function lexPolicy(text: string, source: SourceText, diagnostics: Diagnostic[]): LexResult {
  const lexed = T.policyLexer.tokenize(text);
  for (const err of lexed.errors) diagnostics.push(lexDiagnostic(err.offset, err.length, source));
  for (const bad of (lexed.groups['invalid'] as IToken[] | undefined) ?? []) {
    diagnostics.push(lexDiagnostic(bad.startOffset, bad.image.length, source));
  }
  const comments = (lexed.groups['comments'] as IToken[] | undefined) ?? [];
  checkLiterals(lexed.tokens, source, diagnostics);
  const nested = limitNesting(lexed.tokens, source, diagnostics);
  return { tokens: nested.tokens, comments, nested };
}

/**
 * Sorts diagnostics by position and keeps the first `MAX_DIAGNOSTICS`; when there are more, or when
 * a `parse/too-many-errors` is among them, exactly one `parse/too-many-errors` ends the list.
 * Capping a capped list again gives the same list.
 */
export function capDiagnostics<D extends Diagnostic>(diagnostics: D[]): D[] {
  const stops = diagnostics.filter((d) => d.code === TOO_MANY);
  const sorted = diagnostics
    .filter((d) => d.code !== TOO_MANY)
    .map((d, i) => ({ d, i }))
    .sort((a, b) => (a.d.span?.start.offset ?? -1) - (b.d.span?.start.offset ?? -1) || a.i - b.i)
    .map((x) => x.d);
  const stopped = stops.find((d) => d.message === STOPPED || d.message === CAPPED_AND_STOPPED);
  if (sorted.length <= MAX_DIAGNOSTICS) {
    const stop = stopped ?? stops[0];
    if (stop) sorted.push(stop);
    return sorted;
  }
  const next = sorted[MAX_DIAGNOSTICS] as D;
  const kept = sorted.slice(0, MAX_DIAGNOSTICS);
  const stop = {
    code: TOO_MANY,
    severity: 'error',
    message: stopped ? CAPPED_AND_STOPPED : CAPPED,
    help: 'fix the errors above and check again',
  } as D;
  const span = stopped?.span ?? next.span;
  if (span) stop.span = span;
  kept.push(stop);
  return kept;
}

const TOO_MANY = 'parse/too-many-errors';
const CAPPED = `too many errors: only the first ${MAX_DIAGNOSTICS} are shown`;
const STOPPED = 'too many errors: the rest of the file was not read';
const CAPPED_AND_STOPPED = `${CAPPED}, and the rest of the file was not read`;

function stopDiagnostic(e: TooManyErrors, source: SourceText, last: IToken | undefined): Diagnostic {
  const at = isRealToken(e.token) ? e.token : last;
  const offset = at ? at.startOffset : 0;
  return syntaxError(
    TOO_MANY,
    STOPPED,
    source.span(offset, at ? offset + at.image.length : 0),
    'fix the errors above and check again',
  );
}

// ---------------------------------------------------------------- token checks

function checkLiterals(tokens: IToken[], source: SourceText, out: Diagnostic[]): void {
  for (const tok of tokens) {
    const t = tok.tokenType;
    const at = tok.startOffset;
    if (t === T.StringLit || t === T.UnterminatedString) {
      if (t === T.UnterminatedString) {
        out.push(
          syntaxError(
            'parse/unterminated-string',
            'unterminated string',
            source.span(at, at + 1),
            'close the string with `"` on the same line; write a line break as `\\n`',
          ),
        );
      }
      if (tok.image.includes('\\')) {
        for (const p of decodeString(tok.image).problems) {
          out.push(syntaxError(p.code, p.message, source.span(at + p.start, at + p.end), p.help));
        }
      }
    } else if (t === T.UnterminatedRegex) {
      out.push(
        syntaxError(
          'parse/unterminated-regex',
          'unterminated regex',
          source.span(at, at + 1),
          'close the regex with `/` on the same line; write a `/` inside it as `\\/`',
        ),
      );
    } else if (t === T.RegexLit && decodeRegex(tok.image).source === '') {
      out.push(
        syntaxError(
          'parse/empty-regex',
          `empty regex ${'`' + tok.image + '`'}`,
          source.span(at, at + tok.image.length),
          'comments start with `#`; a regex needs a pattern between its slashes',
        ),
      );
    } else if (t === T.BadNumber) {
      out.push(
        syntaxError(
          'parse/invalid-number',
          `invalid number \`${tok.image}\``,
          source.span(at, at + tok.image.length),
          'a number is written `3` or `1.5`; a duration adds a unit: `500ms`, `10s`, `5m`, `1h`',
        ),
      );
    }
  }
}

export interface Nested {
  tokens: IToken[];
  /**
   * Offset ranges `[start, end)` where parser errors are not reported: from a region dropped for
   * being too deep to the next item, since what the parser then sees there is not what was written.
   */
  quiet: [number, number][];
}

/**
 * Drops brackets nested deeper than `MAX_NESTING` (with everything inside them) and `not`s beyond
 * `MAX_NESTING` in a row, reporting each place once, so that the recursive parser never goes deep.
 */
function limitNesting(tokens: IToken[], source: SourceText, out: Diagnostic[]): Nested {
  const result: Nested = { tokens, quiet: [] };
  let kept: IToken[] | undefined;
  let depth = 0;
  let nots = 0;
  let skipping = false;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as IToken;
    const t = tok.tokenType;
    // an item starts afresh: brackets left open before it do not nest what follows
    if (T.itemKeywords.has(t) && tokens[i + 1]?.tokenType !== T.Colon) {
      skipping = false;
      depth = 0;
    }
    if (skipping) {
      if (T.openers.has(t)) depth++;
      else if (T.closers.has(t) && --depth <= MAX_NESTING) skipping = false;
      continue;
    }
    let drop = false;
    if (t === T.Not) {
      nots++;
      if (nots > MAX_NESTING) {
        drop = true;
        if (nots === MAX_NESTING + 1) {
          out.push(
            syntaxError(
              'parse/too-deep',
              `too many \`not\` in a row: more than ${MAX_NESTING}`,
              source.span(tok.startOffset, tok.startOffset + tok.image.length),
              'two `not`s cancel out; remove them in pairs',
            ),
          );
        }
      }
    } else {
      nots = 0;
      if (T.openers.has(t)) {
        if (depth >= MAX_NESTING) {
          out.push(
            syntaxError(
              'parse/too-deep',
              `brackets nest too deep: more than ${MAX_NESTING} levels`,
              source.span(tok.startOffset, tok.startOffset + tok.image.length),
              'flatten the expression or move parts of it into `let` values',
            ),
          );
          result.quiet.push([tok.startOffset, nextItemOffset(tokens, i + 1)]);
          skipping = true;
          drop = true;
        }
        depth++;
      } else if (T.closers.has(t)) {
        depth = Math.max(0, depth - 1);
      }
    }
    if (drop) {
      kept ??= tokens.slice(0, i);
    } else if (kept) {
      kept.push(tok);
    }
  }
  if (kept) result.tokens = kept;
  return result;
}

/** The offset of the first item keyword from `from` on (not an object key), or infinity. */
function nextItemOffset(tokens: IToken[], from: number): number {
  for (let i = from; i < tokens.length; i++) {
    const tok = tokens[i] as IToken;
    if (T.itemKeywords.has(tok.tokenType) && tokens[i + 1]?.tokenType !== T.Colon) return tok.startOffset;
  }
  return Infinity;
}

// ---------------------------------------------------------------- parser errors

function parserDiagnostics(errors: IRecognitionException[], soft: SoftError[], source: SourceText, nested: Nested): Diagnostic[] {
  const last = nested.tokens[nested.tokens.length - 1];
  const endOffset = last ? last.startOffset + last.image.length : 0;
  const quiet = (tok: IToken): boolean => {
    const at = isRealToken(tok) ? tok.startOffset : endOffset;
    return nested.quiet.some(([from, to]) => at >= from && (at < to || (to === Infinity && !isRealToken(tok))));
  };
  const found: { at: number; d: Diagnostic }[] = [];
  for (const e of errors) {
    if (!quiet(e.token)) found.push({ at: isRealToken(e.token) ? e.token.startOffset : endOffset, d: parserDiagnostic(e, source, last) });
  }
  for (const s of soft) {
    if (quiet(s.token)) continue;
    const span = source.span(s.token.startOffset, s.token.startOffset + s.token.image.length);
    found.push({ at: s.token.startOffset, d: syntaxError('parse/unexpected-token', s.message, span, s.help) });
  }
  // one error per place: recovery can report the same spot twice
  const seen = new Set<number>();
  const out: Diagnostic[] = [];
  for (const { d } of found) {
    const at = d.span?.start.offset ?? -1;
    if (seen.has(at)) continue;
    seen.add(at);
    out.push(d);
  }
  return out;
}

function internalError(e: unknown, source: SourceText): Diagnostic {
  const what = e instanceof Error ? e.message : String(e);
  return syntaxError(
    'parse/internal',
    `the parser failed: ${what.split('\n')[0]?.slice(0, 200) ?? ''}`.toLowerCase(),
    source.span(0, 0),
    'this is a bug in dshpolicy; please report it with the file that caused it',
  );
}
