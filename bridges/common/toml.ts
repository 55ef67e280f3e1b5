/**
 * TOML text for the agents that keep configuration in TOML (Codex's config.toml, Gemini CLI's
 * policy files): smol-toml reads the values (its errors carry a line and column), and a small
 * scanner over the same, already valid, text finds where each key, table header and array element
 * is written. `tomlTree` joins the two into the shared value tree (tree.ts).
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
    return scanToml(text);
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
// Position scanner. It runs only on text smol-toml accepted, so it can assume valid TOML.

const BARE_KEY = /[A-Za-z0-9_-]/;

export function scanToml(text: string): Map<string, Place> {
  const places = new Map<string, Place>();
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
    while (pos < text.length && (text[pos] === ' ' || text[pos] === '\t')) pos++;
  };
  const skipSpaceNewlinesComments = () => {
    for (;;) {
      skipSpace();
      if (text[pos] === '#') {
        while (pos < text.length && text[pos] !== '\n') pos++;
      } else if (text[pos] === '\n' || text[pos] === '\r') {
        pos++;
      } else {
        return;
      }
    }
  };

  const readKey = (): { segs: string[]; start: number; end: number } => {
    const segs: string[] = [];
    skipSpace();
    const start = pos;
    let end = pos;
    for (;;) {
      skipSpace();
      const c = text[pos];
      if (c === '"') {
        const s = pos;
        pos = endOfBasic(text, pos);
        segs.push(decodeBasic(text.slice(s + 1, pos - 1)));
      } else if (c === "'") {
        const close = text.indexOf("'", pos + 1);
        const e = close < 0 ? text.length : close;
        segs.push(text.slice(pos + 1, e));
        pos = e + 1;
      } else {
        const s = pos;
        while (pos < text.length && BARE_KEY.test(text[pos]!)) pos++;
        if (pos === s) throw new Error('key expected');
        segs.push(text.slice(s, pos));
      }
      end = pos;
      skipSpace();
      if (text[pos] === '.') {
        pos++;
        continue;
      }
      return { segs, start, end };
    }
  };

  const resolve = (segs: string[], forTableArray: boolean): (string | number)[] => {
    const out: (string | number)[] = [];
    segs.forEach((s, i) => {
      out.push(s);
      const last = i === segs.length - 1;
      if (forTableArray && last) return;
      const idx = tableArrays.get(ptr(out));
      if (idx !== undefined) out.push(idx);
    });
    return out;
  };

  const readValue = (path: (string | number)[], depth: number): { start: number; end: number } => {
    if (depth > MAX_TOML_DEPTH + 1) throw new Error('too deep');
    const start = pos;
    const c = text[pos];
    if (text.startsWith('"""', pos)) {
      pos = endOfMultiline(text, pos, '"');
    } else if (text.startsWith("'''", pos)) {
      pos = endOfMultiline(text, pos, "'");
    } else if (c === '"') {
      pos = endOfBasic(text, pos);
    } else if (c === "'") {
      const close = text.indexOf("'", pos + 1);
      pos = close < 0 ? text.length : close + 1;
    } else if (c === '[') {
      pos++;
      let index = 0;
      for (;;) {
        skipSpaceNewlinesComments();
        if (pos >= text.length || text[pos] === ']') {
          pos++;
          break;
        }
        const elementPath = [...path, index];
        const before = pos;
        const v = readValue(elementPath, depth + 1);
        record(elementPath, { start: v.start, end: v.end });
        skipSpaceNewlinesComments();
        if (text[pos] === ',') pos++;
        else if (pos === before) throw new Error('unexpected character in an array');
        index++;
      }
    } else if (c === '{') {
      pos++;
      for (;;) {
        skipSpaceNewlinesComments();
        if (pos >= text.length || text[pos] === '}') {
          pos++;
          break;
        }
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        const before = pos;
        readKeyValue(path, depth + 1);
        if (pos === before) throw new Error('unexpected character in an inline table');
      }
    } else {
      while (pos < text.length && !',]}#\n\r'.includes(text[pos]!)) pos++;
      let end = pos;
      while (end > start && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
      return { start, end };
    }
    return { start, end: pos };
  };

  const readKeyValue = (base: (string | number)[], depth: number) => {
    const key = readKey();
    skipSpace();
    if (text[pos] !== '=') throw new Error('`=` expected');
    pos++;
    skipSpace();
    const path = [...base, ...key.segs];
    // Dotted keys create the intermediate tables where the key is written.
    for (let i = 1; i < key.segs.length; i++) record([...base, ...key.segs.slice(0, i)], { start: key.start, end: key.end });
    const v = readValue(path, depth);
    record(path, { keyStart: key.start, keyEnd: key.end, start: v.start, end: v.end });
  };

  for (;;) {
    skipSpaceNewlinesComments();
    if (pos >= text.length) break;
    if (text[pos] === '[') {
      const headerStart = pos;
      const isArray = text[pos + 1] === '[';
      pos += isArray ? 2 : 1;
      const key = readKey();
      skipSpace();
      pos += isArray ? 2 : 1;
      const place = { start: headerStart, end: pos };
      if (isArray) {
        const arrayPath = resolve(key.segs, true);
        const arrayPointer = ptr(arrayPath);
        const index = (tableArrays.get(arrayPointer) ?? -1) + 1;
        tableArrays.set(arrayPointer, index);
        record(arrayPath, place);
        table = [...arrayPath, index];
      } else {
        table = resolve(key.segs, false);
      }
      for (let i = 1; i < table.length; i++) record(table.slice(0, i), place);
      record(table, place);
      continue;
    }
    const before = pos;
    readKeyValue(table, 0);
    if (pos === before) throw new Error('unexpected character');
  }
  return places;
}

/** Just past the closing quote of the basic string that opens at `start`. */
function endOfBasic(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') return i + 1;
    else if (c === '\n') return i;
  }
  return text.length;
}

/**
 * Just past the closing delimiter of the multi-line string (`"""` or `'''`) that opens at `start`;
 * up to two extra quotes belong to it. Undefined when it is not closed. Codex's config editing
 * (codex/install.ts) scans strings with it too.
 */
export function multilineStringEnd(text: string, start: number, quote: string): number | undefined {
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

/** `multilineStringEnd`, or the end of the text when the string is not closed. */
function endOfMultiline(text: string, start: number, quote: string): number {
  return multilineStringEnd(text, start, quote) ?? text.length;
}

/** The value of a TOML basic string's body (between the quotes). */
export function decodeBasic(s: string): string {
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
