/**
 * The grammar layer: text in, concrete syntax tree and syntax diagnostics out. Never throws on input.
 *
 * Steps: lex; check the tokens that need it (unterminated or malformed literals, nesting depth);
 * run the one parser instance with error recovery; turn every error into a diagnostic.
 */
import { EOF, type CstNode, type IRecognitionException, type IToken } from 'chevrotain';
import type { FileCst, ItemCst } from './cst.js';
import {
  lexDiagnostic,
  parserDiagnostic,
  SourceText,
  syntaxError,
  type Diagnostic,
  type ParseContext,
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

const context: ParseContext = { frames: [], source: new SourceText('', ''), tokens: [], tokenCount: 0 };
const parser = new PolicyParser(context);

export interface ParseOptions {
  /**
   * Receives each top-level item as soon as it is parsed, in source order. The item's children are
   * released once the callback returns (the returned `cst` then holds emptied items), so that a large
   * file never needs its whole tree in memory.
   */
  onItem?: (item: ItemCst) => void;
}

/** Parses one policy file. */
export function parse(text: string, file: string, options: ParseOptions = {}): ParseResult {
  const source = new SourceText(text, file);
  const onItem = options.onItem;
  const delivered = new WeakSet<ItemCst>();
  const deliver = onItem
    ? (item: ItemCst): void => {
        if (delivered.has(item)) return;
        delivered.add(item);
        onItem(item);
        const children = item.children as Record<string, unknown>;
        for (const key of Object.keys(children)) delete children[key];
      }
    : undefined;
  const diagnostics: Diagnostic[] = [];
  let comments: IToken[] = [];
  let cst: FileCst | undefined;
  try {
    const lexed = T.policyLexer.tokenize(text);
    for (const err of lexed.errors) diagnostics.push(lexDiagnostic(err.offset, err.length, source));
    comments = (lexed.groups['comments'] as IToken[] | undefined) ?? [];
    for (const c of comments) setEnd(c);
    checkLiterals(lexed.tokens, source, diagnostics);
    const nested = limitNesting(lexed.tokens, source, diagnostics);

    context.frames = [];
    context.source = source;
    context.tokens = nested.tokens;
    context.tokenCount = nested.tokens.length;
    parser.input = nested.tokens;
    context.onItem = deliver as ((item: CstNode) => void) | undefined;
    cst = parser.file() as FileCst;
    // an item cut short by an error that reached the top level is not handed over by the parser
    if (deliver) for (const item of cst.children.item ?? []) deliver(item);
    diagnostics.push(...parserDiagnostics(parser.errors, source, nested));
  } catch (e) {
    diagnostics.push(internalError(e, source));
  } finally {
    context.frames = [];
    context.tokens = [];
    context.tokenCount = 0;
    context.onItem = undefined;
    parser.input = [];
  }
  return { cst, diagnostics: capDiagnostics(diagnostics), comments, source };
}

/** Sorts diagnostics by position and keeps the first `MAX_DIAGNOSTICS`, then adds `parse/too-many-errors`. */
export function capDiagnostics<D extends Diagnostic>(diagnostics: D[]): D[] {
  const sorted = diagnostics
    .map((d, i) => ({ d, i }))
    .sort((a, b) => (a.d.span?.start.offset ?? -1) - (b.d.span?.start.offset ?? -1) || a.i - b.i)
    .map((x) => x.d);
  if (sorted.length <= MAX_DIAGNOSTICS) return sorted;
  const next = sorted[MAX_DIAGNOSTICS] as D;
  const kept = sorted.slice(0, MAX_DIAGNOSTICS);
  const extra = sorted.length - MAX_DIAGNOSTICS;
  const stop = {
    code: 'parse/too-many-errors',
    severity: 'error',
    message: `too many errors: ${extra} more not shown`,
    help: 'fix the errors above and check again',
  } as D;
  if (next.span) stop.span = next.span;
  kept.push(stop);
  return kept;
}

// ---------------------------------------------------------------- token checks

/** The lexer tracks start offsets only; node locations need end offsets too (inclusive). */
function setEnd(tok: IToken): void {
  tok.endOffset = tok.startOffset + tok.image.length - 1;
}

function checkLiterals(tokens: IToken[], source: SourceText, out: Diagnostic[]): void {
  for (const tok of tokens) {
    setEnd(tok);
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

interface Nested {
  tokens: IToken[];
  /** Offsets of the tokens right after a region dropped for being too deep. */
  resumeAt: Set<number>;
  /** A dropped region ran to the end of the file. */
  resumeAtEnd: boolean;
}

/**
 * Drops brackets nested deeper than `MAX_NESTING` (with everything inside them) and `not`s beyond
 * `MAX_NESTING` in a row, reporting each place once, so that the recursive parser never goes deep.
 */
function limitNesting(tokens: IToken[], source: SourceText, out: Diagnostic[]): Nested {
  const result: Nested = { tokens, resumeAt: new Set(), resumeAtEnd: false };
  let kept: IToken[] | undefined;
  let depth = 0;
  let nots = 0;
  let skipping = false;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as IToken;
    const t = tok.tokenType;
    if (skipping) {
      if (T.openers.has(t)) depth++;
      else if (T.closers.has(t) && --depth <= MAX_NESTING) {
        skipping = false;
        const next = tokens[i + 1];
        if (next) result.resumeAt.add(next.startOffset);
        else result.resumeAtEnd = true;
      }
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
  if (skipping) result.resumeAtEnd = true;
  if (kept) result.tokens = kept;
  return result;
}

// ---------------------------------------------------------------- parser errors

function parserDiagnostics(errors: IRecognitionException[], source: SourceText, nested: Nested): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<number>();
  for (const e of errors) {
    const tok = e.token;
    const real = tok && Number.isFinite(tok.startOffset) && tok.tokenType !== EOF;
    // the first error after a region dropped for depth is a consequence of dropping it
    if (real ? nested.resumeAt.has(tok.startOffset) : nested.resumeAtEnd) continue;
    const d = parserDiagnostic(e, source, nested.tokens[nested.tokens.length - 1]);
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
