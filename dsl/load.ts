/**
 * Stage 1, loading: reads and parses the entry files and every file they `include`, and reports the
 * `import` declarations this version cannot honour.
 *
 * - A file is identified by its normalised POSIX path; an `include` path is relative to the
 *   directory of the file that includes it (an absolute path is taken as is).
 * - Files are listed in load order: each entry, then (depth first, in order) what it includes.
 * - A file reached twice (two entries, or a diamond of includes) is loaded once.
 * - An include that leads back to a file still being loaded is a cycle: an error at that include.
 */
import { posix } from 'node:path';
import { diagnostic, hasErrors, LineIndex, type Diagnostic, type Rule, type TestCase } from '../engine/index.js';
import type { ImportDecl, IncludeDecl, PolicyFile } from './ast.js';
import { codeList } from './suggest.js';

/** Where the compiler reads files from: the file system, or an in-memory map in tests. */
export interface SourceHost {
  /**
   * The file's text, or its bytes (decoded here as strict UTF-8); undefined when it does not exist
   * or cannot be read.
   */
  readFile(path: string): string | Uint8Array | undefined;
  /**
   * The one name a file goes by, however it was reached (`./a`, `/abs/a`, `sub/../a`): the file's
   * identity for include diamonds and the `file` of its spans. Defaults to POSIX normalisation.
   */
  canonical?(path: string): string;
  /**
   * Reads what an `import <agent> <what> "path"` names into IR rules (the bridges provide this;
   * the language itself knows nothing of agents' configuration formats). Without one, imports
   * are reported as unsupported.
   */
  importer?: Importer;
}

/** One `import` to honour: the agent and kind as written, the resolved path and the file's text. */
export interface ImportRequest {
  agent: string;
  what: string;
  path: string;
  text: string;
}

export type Importer = (req: ImportRequest) => { rules: Rule[]; diagnostics: Diagnostic[]; tests?: TestCase[] } | undefined;

/** Rules an `import` brought in, and the file they came from. */
export interface ImportedRules {
  file: string;
  rules: Rule[];
  /** Examples the imported file carries (Codex's `match` / `not_match`), as test cases. */
  tests: TestCase[];
}

export type ParseFn = (text: string, file: string) => { ast: PolicyFile; diagnostics: Diagnostic[] };

export interface LoadedFile {
  /** Normalised path: the file's identity and the `file` of every span in it. */
  readonly file: string;
  readonly text: string;
  readonly ast: PolicyFile;
  /** False when the parser reported an error: the later stages leave such a file alone. */
  readonly parsed: boolean;
}

export interface LoadResult {
  files: LoadedFile[];
  imported: ImportedRules[];
  diagnostics: Diagnostic[];
}

/**
 * The import forms of the language (docs/language.md); a host's importer honours them (the
 * bridges' importer honours exactly these, one per agent part: bridges/agents.test.ts).
 */
export const KNOWN_IMPORTS: readonly { agent: string; what: string }[] = [
  { agent: 'claude', what: 'hooks' },
  { agent: 'codex', what: 'hooks' },
  { agent: 'claude', what: 'permissions' },
  { agent: 'codex', what: 'rules' },
  { agent: 'gemini', what: 'policy' },
];

export function normalizePath(path: string): string {
  return posix.normalize(path);
}

/** The path an `include` in `from` names. */
function canonicalOf(host: SourceHost, path: string): string {
  return host.canonical ? host.canonical(path) : path;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LENIENT_UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The offset of the first byte of the first ill-formed UTF-8 sequence in `bytes` (the well-formed
 * sequences of the Unicode standard's table 3-7: no overlong forms, no surrogates, nothing past
 * U+10FFFF), or -1 when every byte belongs to a character.
 */
export function invalidUtf8At(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let more: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) more = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      more = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      more = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + more >= n) return i;
    const second = bytes[i + 1]!;
    if (second < lo || second > hi) return i;
    for (let k = 2; k <= more; k++) {
      const c = bytes[i + k]!;
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += more + 1;
  }
  return -1;
}

/**
 * A policy file's bytes as text. A byte that is not UTF-8 is the error `parse/invalid-utf8` at the
 * first such byte: read leniently it would become U+FFFD and silently change what a rule says
 * (a pattern, a reason). `text` is then the lenient reading, which the span points into (one
 * U+FFFD per bad sequence, as editors and the code frames show it).
 */
export function decodeSource(bytes: Uint8Array, file: string): { text: string; diagnostic?: Diagnostic } {
  try {
    return { text: STRICT_UTF8.decode(bytes) };
  } catch {
    // fall through: find where
  }
  const at = invalidUtf8At(bytes);
  const text = LENIENT_UTF8.decode(bytes);
  if (at < 0) return { text };
  const offset = LENIENT_UTF8.decode(bytes.subarray(0, at)).length;
  const byte = bytes[at]!.toString(16).toUpperCase().padStart(2, '0');
  return {
    text,
    diagnostic: diagnostic('parse/invalid-utf8', 'error', `invalid UTF-8: the byte \`0x${byte}\` at byte offset ${at} is not part of a UTF-8 character`, {
      span: new LineIndex(text).span(file, offset, offset + 1),
      help: 'policy files are UTF-8; save the file as UTF-8 (in another encoding, bytes like this one would be read as U+FFFD and change what the policy says)',
    }),
  };
}

/** What a host read for a policy file, decoded strictly; undefined when it could not be read. */
function readSource(host: SourceHost, path: string): { text: string; diagnostic?: Diagnostic } | undefined {
  const read = host.readFile(path);
  if (read === undefined) return undefined;
  return typeof read === 'string' ? { text: read } : decodeSource(read, path);
}

export function resolveInclude(from: string, target: string): string {
  if (posix.isAbsolute(target)) return posix.normalize(target);
  return posix.normalize(posix.join(posix.dirname(from), target));
}

export function loadSources(entries: readonly string[], host: SourceHost, parse: ParseFn): LoadResult {
  const files: LoadedFile[] = [];
  const imported: ImportedRules[] = [];
  const diagnostics: Diagnostic[] = [];
  /** Files fully loaded or being loaded; `active` ones are on the current include chain. */
  const state = new Map<string, 'active' | 'done'>();
  const chain: string[] = [];

  const visit = (file: string, text: string): void => {
    state.set(file, 'active');
    chain.push(file);
    const parsed = parse(text, file);
    diagnostics.push(...parsed.diagnostics);
    files.push({ file, text, ast: parsed.ast, parsed: !hasErrors(parsed.diagnostics) });
    for (const item of parsed.ast.items) {
      if (item.kind === 'include') followInclude(file, item);
      else if (item.kind === 'import') followImport(file, item);
    }
    chain.pop();
    state.set(file, 'done');
  };

  const followImport = (from: string, item: ImportDecl): void => {
    const agent = item.agent.name;
    const what = item.what.name;
    const known = KNOWN_IMPORTS.some((k) => k.agent === agent && k.what === what);
    if (!known || !host.importer) {
      diagnostics.push(importDiagnostic(item));
      return;
    }
    const target = canonicalOf(host, resolveInclude(from, item.path.value));
    if (imported.some((i) => i.file === target)) return;
    const read = host.readFile(target);
    // An agent's own file is read as the agent reads it (Claude Code: invalid bytes become U+FFFD).
    const text = typeof read === 'string' || read === undefined ? read : LENIENT_UTF8.decode(read);
    if (text === undefined) {
      diagnostics.push(
        diagnostic('check/import-not-found', 'error', `cannot read imported file \`${item.path.value}\``, {
          span: item.path.span,
          help: 'import paths are relative to the directory of the file that imports them',
        }),
      );
      return;
    }
    const result = host.importer({ agent, what, path: target, text });
    if (!result) {
      diagnostics.push(importDiagnostic(item));
      return;
    }
    diagnostics.push(...result.diagnostics);
    imported.push({ file: target, rules: result.rules, tests: result.tests ?? [] });
  };

  const followInclude = (from: string, include: IncludeDecl): void => {
    const target = canonicalOf(host, resolveInclude(from, include.path.value));
    const seen = state.get(target);
    if (seen === 'done') return;
    if (seen === 'active') {
      const loop = [...chain.slice(chain.indexOf(target)), target].join(' -> ');
      diagnostics.push(
        diagnostic('check/include-cycle', 'error', `include cycle: \`${loop}\``, {
          span: include.span,
          help: 'a file cannot include itself, directly or through other files; move what both need into a third file',
        }),
      );
      return;
    }
    const source = readSource(host, target);
    if (source === undefined) {
      const resolved = target === include.path.value ? '' : ` (resolved to \`${target}\`)`;
      diagnostics.push(
        diagnostic('check/include-not-found', 'error', `cannot read included file \`${include.path.value}\`${resolved}`, {
          span: include.span,
          help: 'include paths are relative to the directory of the file that includes them',
        }),
      );
      return;
    }
    if (source.diagnostic) {
      diagnostics.push(source.diagnostic);
      state.set(target, 'done');
      return;
    }
    visit(target, source.text);
  };

  for (const entry of entries) {
    const file = canonicalOf(host, normalizePath(entry));
    if (state.has(file)) continue;
    const source = readSource(host, file);
    if (source === undefined) {
      diagnostics.push(diagnostic('check/file-not-found', 'error', `cannot read policy file \`${entry}\``));
      continue;
    }
    // A file that is not UTF-8 is not parsed (what it says is not known), and reported once.
    if (source.diagnostic) {
      diagnostics.push(source.diagnostic);
      state.set(file, 'done');
      continue;
    }
    visit(file, source.text);
  }
  return { files, imported, diagnostics };
}

function importDiagnostic(item: ImportDecl): Diagnostic {
  const agent = item.agent.name;
  const what = item.what.name;
  if (KNOWN_IMPORTS.some((k) => k.agent === agent && k.what === what)) {
    return diagnostic('check/import-unsupported', 'error', `importing \`${agent} ${what}\` is not supported by this version`, {
      span: item.span,
      help:
        what === 'hooks'
          ? `write the hooks as \`run\` rules instead, e.g. \`run Bash hook "./script.sh" dialect ${agent}\``
          : `print the file as rules with \`dshpolicy import ${agent} ${what} <file>\` and include them instead`,
    });
  }
  return diagnostic('check/unknown-import', 'error', `\`${agent} ${what}\` is not something that can be imported`, {
    span: item.span,
    help: `known imports: ${codeList(KNOWN_IMPORTS.map((k) => `${k.agent} ${k.what}`))}`,
  });
}
