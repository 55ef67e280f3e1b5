/**
 * TOML text for the agents that keep configuration in TOML (Codex's config.toml, Gemini CLI's
 * policy files): smol-toml reads the values (its errors carry a line and column), and one small
 * scanner over the same, already valid, text finds where everything is written: each key, table
 * header and array element (`tomlPlaces`, which `tomlTree` joins with the values into the shared
 * value tree, tree.ts), and each statement with its lines and its value (`tomlStatements`, for
 * edits that change a few statements and keep every other byte).
 *
 * How integers are read is the caller's, as it is each agent's: as bigints, so `1` and `1.0` stay
 * apart and no integer loses digits, or as smol-toml reads them by default (JavaScript numbers,
 * refusing an integer that a number cannot hold exactly). The words of every diagnostic are the
 * caller's too; a syntax error comes back as smol-toml's message and where it points.
 */
import { parse, TomlError } from 'smol-toml';
import type { Span } from '../../engine/index.js';
import { childPointer, TreeNode, type SpanSource, type ValueKind, type ValueNode } from './tree.js';

/** Where one value is written, as offsets: the value (a table or array element: its header) and, for a member, its key. */
export interface Place {
  keyStart?: number;
  keyEnd?: number;
  start: number;
  end: number;
}

export interface TomlText {
  /** The value smol-toml read; undefined when the text is not TOML. */
  value?: unknown;
  /**
   * Why the text is not TOML: smol-toml's message (its first line, starting lowercase, without
   * its prefix and final period) and one character at the line and column it gives.
   */
  error?: { message: string; span: Span };
}

/** smol-toml's own nesting limit for inline arrays and tables. */
const MAX_TOML_DEPTH = 1000;

/** Parses `text` (named `src.file`). Never throws. */
export function readToml(text: string, src: SpanSource, opts: { integersAsBigInt: boolean }): TomlText {
  try {
    return { value: parse(text, { integersAsBigInt: opts.integersAsBigInt, maxDepth: MAX_TOML_DEPTH }) };
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    let message = raw.replace(/^Invalid TOML document:\s*/i, '').split('\n')[0]!.trim().replace(/\.+$/, '') || 'invalid TOML';
    message = message.charAt(0).toLowerCase() + message.slice(1);
    let offset = 0;
    if (err instanceof TomlError && Number.isFinite(err.line) && Number.isFinite(err.column)) offset = src.lines.offsetOf(err.line, err.column);
    return { error: { message, span: src.lines.span(src.file, offset, Math.min(offset + 1, text.length)) } };
  }
}

/** Where each value of `text` (TOML that smol-toml read) is written, by JSON pointer; empty when the scanner gives up. */
export function tomlPlaces(text: string): Map<string, Place> {
  try {
    return scanToml(text).places;
  } catch {
    // Positions are a nicety: without them, diagnostics fall back to a place known to be right.
    return new Map();
  }
}

/** The span of the value at `pointer` (of its key, with `key`, when it has one); undefined when its place is not known. */
export function placeSpan(places: Map<string, Place>, src: SpanSource, pointer: string, key = false): Span | undefined {
  const p = places.get(pointer);
  if (!p) return undefined;
  return key && p.keyStart !== undefined ? src.lines.span(src.file, p.keyStart, p.keyEnd ?? p.keyStart) : src.lines.span(src.file, p.start, p.end);
}

interface Ctx extends SpanSource {
  places: Map<string, Place>;
  text: string;
}

/** The value tree of what `readToml` read with bigint integers; a value whose place is unknown borrows its nearest ancestor's. */
export function tomlTree(value: unknown, text: string, src: SpanSource, places: Map<string, Place>): ValueNode {
  return convert(value, '', { ...src, places, text }, { start: 0, end: 0 });
}

function convert(v: unknown, pointer: string, ctx: Ctx, inherited: Place): ValueNode {
  const place = ctx.places.get(pointer);
  const at = place ?? inherited;
  const make = (kind: ValueKind, value: ValueNode['value']) => {
    const n = new TreeNode(ctx, kind, value, pointer, at.start, at.end);
    if (place?.keyStart !== undefined) {
      n.keyStart = place.keyStart;
      n.keyEnd = place.keyEnd ?? place.keyStart;
    }
    return n;
  };
  if (Array.isArray(v)) {
    const n = make('array', undefined);
    n.items = v.map((x, i) => convert(x, childPointer(pointer, i), ctx, at));
    return n;
  }
  if (v instanceof Date) return make('datetime', dateText(v));
  if (v !== null && typeof v === 'object') {
    const n = make('object', undefined);
    n.props = Object.keys(v).map((key) => ({ key, node: convert((v as Record<string, unknown>)[key], childPointer(pointer, key), ctx, at) }));
    return n;
  }
  switch (typeof v) {
    case 'string': {
      const n = make('string', v);
      if (place) n.raw = ctx.text.slice(place.start, place.end);
      return n;
    }
    case 'bigint':
      return make('integer', v);
    case 'number':
      return make('float', v);
    case 'boolean':
      return make('boolean', v);
    default:
      return make('null', null);
  }
}

function dateText(d: Date): string {
  try {
    return String(d.toISOString());
  } catch {
    return 'date';
  }
}

// ---------------------------------------------------------------------------------------------
// The scanner: one pass over text smol-toml accepted, so it can assume valid TOML. On anything
// else it may give up, with an Error, but it ends.

const BARE_KEY = /[A-Za-z0-9_-]/;

/** One segment of a key as written: its value (quotes and escapes undone) and where it is written. */
export interface TomlKeySegment {
  value: string;
  start: number;
  end: number;
}

/** One statement of a TOML document: a table header, an array-of-tables header or a key/value pair. */
export interface TomlStatement {
  kind: 'table' | 'array-table' | 'pair';
  /** The table a pair is written in (its path, as in `path`); empty for headers. */
  table: (string | number)[];
  /** The header's or the pair's key segments. */
  keys: TomlKeySegment[];
  /**
   * What the statement defines, from the root: a pair's `table` then its keys' values; a header's
   * keys' values, each array of tables on the way followed by the index of its last element. A
   * `[[…]]` header's path is its array's; the element it opens is the `table` of the pairs under it.
   */
  path: (string | number)[];
  /** The header, or the pair from its key to the end of its value. */
  start: number;
  end: number;
  /** Start of the line the statement starts on; just past the newline of the line it ends on (or the end of the text). */
  lineStart: number;
  lineEnd: number;
  /** A pair's value as written. */
  valueStart?: number;
  valueEnd?: number;
}

export interface TomlScan {
  /** Where each value is written, by JSON pointer (the first place that defines it). */
  places: Map<string, Place>;
  /** The document's statements, in order. */
  statements: TomlStatement[];
}

/** The statements of `text` (TOML that smol-toml read); empty when the scanner gives up. */
export function tomlStatements(text: string): TomlStatement[] {
  try {
    return scanToml(text).statements;
  } catch {
    return [];
  }
}

/** Scans `text` (TOML that smol-toml read) for its places and statements. Throws an Error on what it does not understand. */
export function scanToml(text: string): TomlScan {
  const places = new Map<string, Place>();
  const statements: TomlStatement[] = [];
  /** Last element index of every array of tables, by resolved pointer. */
  const tableArrays = new Map<string, number>();
  let pos = 0;
  let table: (string | number)[] = [];

  const ptr = (segs: (string | number)[]) => segs.reduce<string>((acc, s) => childPointer(acc, s), '');
  const record = (segs: (string | number)[], place: Place) => {
    const p = ptr(segs);
    if (!places.has(p)) places.set(p, place);
  };

  const skipSpace = () => {
    while (text[pos] === ' ' || text[pos] === '\t') pos++;
  };
  /** Spaces, newlines and comments. */
  const skipBlanks = () => {
    for (;;) {
      skipSpace();
      if (text[pos] === '#') while (pos < text.length && text[pos] !== '\n') pos++;
      else if (text[pos] === '\n' || text[pos] === '\r') pos++;
      else return;
    }
  };
  /** The rest of a statement's line: spaces, a comment, the newline. Returns the end of the line. */
  const endOfLine = (): number => {
    skipSpace();
    if (text[pos] === '#') while (pos < text.length && text[pos] !== '\n') pos++;
    if (text[pos] === '\r') pos++;
    if (pos < text.length) {
      if (text[pos] !== '\n') throw new Error('newline expected');
      pos++;
    }
    return pos;
  };

  /** Just past the string that opens at `pos`: basic or literal, or (`multiline`, for values) their multi-line forms. */
  const stringEnd = (multiline: boolean): number => {
    const quote = text[pos]!;
    if (multiline && text.startsWith(quote.repeat(3), pos)) {
      const end = multilineStringEnd(text, pos, quote);
      if (end === undefined) throw new Error('unterminated string');
      return end;
    }
    for (let i = pos + 1; i < text.length; i++) {
      if (text[i] === quote) return i + 1;
      if (text[i] === '\\' && quote === '"') i++;
      else if (text[i] === '\n') break;
    }
    throw new Error('unterminated string');
  };

  const readKey = (): TomlKeySegment[] => {
    const keys: TomlKeySegment[] = [];
    for (;;) {
      skipSpace();
      const start = pos;
      const c = text[pos];
      if (c === '"' || c === "'") {
        pos = stringEnd(false);
        const body = text.slice(start + 1, pos - 1);
        keys.push({ value: c === '"' ? decodeBasic(body) : body, start, end: pos });
      } else {
        while (pos < text.length && BARE_KEY.test(text[pos]!)) pos++;
        if (pos === start) throw new Error('key expected');
        keys.push({ value: text.slice(start, pos), start, end: pos });
      }
      skipSpace();
      if (text[pos] !== '.') return keys;
      pos++;
    }
  };

  /** Resolves a header's key: every array of tables on the way stands for its last element (but the one `[[…]]` names). */
  const resolve = (names: string[], forTableArray: boolean): (string | number)[] => {
    const out: (string | number)[] = [];
    names.forEach((s, i) => {
      out.push(s);
      if (forTableArray && i === names.length - 1) return;
      const index = tableArrays.get(ptr(out));
      if (index !== undefined) out.push(index);
    });
    return out;
  };

  const readValue = (path: (string | number)[], depth: number): { start: number; end: number } => {
    if (depth > MAX_TOML_DEPTH + 1) throw new Error('too deep');
    const start = pos;
    const c = text[pos];
    if (c === '"' || c === "'") {
      pos = stringEnd(true);
    } else if (c === '[' || c === '{') {
      const close = c === '[' ? ']' : '}';
      pos++;
      for (let index = 0; ; index++) {
        skipBlanks();
        if (text[pos] === close) break;
        if (close === ']') {
          const elementPath = [...path, index];
          record(elementPath, readValue(elementPath, depth + 1));
        } else {
          readPair(path, depth + 1);
        }
        skipBlanks();
        if (text[pos] === ',') pos++;
        else if (text[pos] !== close) throw new Error(`\`,\` or \`${close}\` expected`);
      }
      pos++;
    } else {
      while (pos < text.length && !',]}#\n\r'.includes(text[pos]!)) pos++;
      while (pos > start && (text[pos - 1] === ' ' || text[pos - 1] === '\t')) pos--;
      if (pos === start) throw new Error('value expected');
    }
    return { start, end: pos };
  };

  const readPair = (base: (string | number)[], depth: number) => {
    const keys = readKey();
    if (text[pos] !== '=') throw new Error('`=` expected');
    pos++;
    skipSpace();
    const path = [...base, ...keys.map((k) => k.value)];
    const keyStart = keys[0]!.start;
    const keyEnd = keys[keys.length - 1]!.end;
    // Dotted keys create the intermediate tables where the key is written.
    for (let i = 1; i < keys.length; i++) record(path.slice(0, base.length + i), { start: keyStart, end: keyEnd });
    const value = readValue(path, depth);
    record(path, { keyStart, keyEnd, start: value.start, end: value.end });
    return { keys, path, value };
  };

  for (;;) {
    skipBlanks();
    if (pos >= text.length) break;
    const start = pos;
    const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
    if (text[pos] === '[') {
      const isArray = text[pos + 1] === '[';
      pos += isArray ? 2 : 1;
      const keys = readKey();
      const close = isArray ? ']]' : ']';
      if (!text.startsWith(close, pos)) throw new Error('`]` expected');
      pos += close.length;
      const place = { start, end: pos };
      const names = keys.map((k) => k.value);
      let path: (string | number)[];
      if (isArray) {
        path = resolve(names, true);
        const arrayPointer = ptr(path);
        const index = (tableArrays.get(arrayPointer) ?? -1) + 1;
        tableArrays.set(arrayPointer, index);
        record(path, place);
        table = [...path, index];
      } else {
        path = table = resolve(names, false);
      }
      for (let i = 1; i < table.length; i++) record(table.slice(0, i), place);
      record(table, place);
      const end = pos;
      statements.push({ kind: isArray ? 'array-table' : 'table', table: [], keys, path, start, end, lineStart, lineEnd: endOfLine() });
      continue;
    }
    const base = table;
    const { keys, path, value } = readPair(base, 0);
    statements.push({ kind: 'pair', table: base, keys, path, start, end: value.end, lineStart, lineEnd: endOfLine(), valueStart: value.start, valueEnd: value.end });
  }
  return { places, statements };
}

/**
 * Just past the closing delimiter of the multi-line string (`"""` or `'''`) that opens at `start`;
 * up to two extra quotes belong to it. Undefined when it is not closed.
 */
function multilineStringEnd(text: string, start: number, quote: string): number | undefined {
  const delim = quote.repeat(3);
  for (let i = start + 3; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') {
      i++;
      continue;
    }
    if (text.startsWith(delim, i)) {
      let end = i + 3;
      while (end < text.length && end < i + 5 && text[end] === quote) end++;
      return end;
    }
  }
  return undefined;
}

/** The value of a TOML basic string's body (between the quotes). */
function decodeBasic(s: string): string {
  return s.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2}|.)/g, (_m, e: string) => {
    switch (e[0]) {
      case 'b':
        return '\b';
      case 't':
        return '\t';
      case 'n':
        return '\n';
      case 'f':
        return '\f';
      case 'r':
        return '\r';
      case 'e':
        return '\x1b';
      case 'u':
      case 'U':
      case 'x': {
        const cp = parseInt(e.slice(1), 16);
        return cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
      }
      default:
        return e;
    }
  });
}
