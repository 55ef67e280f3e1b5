/**
 * The edit of Codex's user `config.toml` that trusts dshpolicy's hooks, textually: entries are
 * removed, renamed or appended, everything else stays as it is, and the result is parsed again and
 * compared with what was meant before it is accepted (a refusal says what to change by hand).
 * Pure text in, text out.
 *
 * Codex runs an unmanaged hook only once it is trusted: `[hooks.state."<key>"] trusted_hash =
 * "sha256:…"`, the key being `<hooks.json path>:<event label>:<group index>:<handler index>` and
 * the hash Codex's hash of the hook (see trust.ts). Project hooks also need the project trusted
 * (`[projects."<dir>"] trust_level = "trusted"`).
 */
import { parse } from 'smol-toml';
import { diagnostic, LineIndex, type Diagnostic } from '../../engine/index.js';
import { isObject } from '../common/hooks-json.js';
import { tomlStatements, type TomlStatement } from '../common/toml.js';
import { loadCodexFile } from './load.js';
import { parseToml } from './toml.js';

/** One hook's trust: its key and the hash Codex trusts it by. */
export interface CodexTrustEntry {
  key: string;
  /** `sha256:…`, as Codex computes it. */
  hash: string;
  event: string;
}

/** A TOML basic string. */
export function tomlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** The lines that trust one hook. */
export function trustEntryText(e: { key: string; hash: string }, eol = '\n'): string {
  return `[hooks.state.${tomlString(e.key)}]${eol}trusted_hash = ${tomlString(e.hash)}${eol}`;
}

/** The lines that trust a project. */
export function projectTrustText(dir: string, eol = '\n'): string {
  return `[projects.${tomlString(dir)}]${eol}trust_level = "trusted"${eol}`;
}

/**
 * A statement's path by names (elements of arrays of tables left out), as the edits below match
 * statements; undefined for a pair written directly under an array-of-tables header, which no edit
 * touches.
 */
function namesOf(s: TomlStatement): string[] | undefined {
  if (s.kind === 'pair' && typeof s.table[s.table.length - 1] === 'number') return undefined;
  return s.path.filter((x): x is string => typeof x === 'string');
}

export interface CodexConfigEdit {
  ok: boolean;
  text: string;
  changed: boolean;
  diagnostics: Diagnostic[];
  /** Entries written or replaced. */
  added: CodexTrustEntry[];
  /** Keys of entries removed (ours, or stale ones of our file). */
  removed: string[];
  /** Entries of other hooks renamed because their hooks moved. */
  renamed: [string, string][];
  /** The project trust was written (absent: not asked for). */
  projectTrusted?: 'already' | 'written';
}

export interface CodexConfigEditOptions {
  /** Entries to have (key -> trusted_hash). */
  add: readonly CodexTrustEntry[];
  /** Whether an existing entry is ours and goes (unless `add` keeps it as it is). */
  isOurs: (key: string, trustedHash: unknown) => boolean;
  /** Entries of other hooks to rename (old key -> new key). */
  renames: ReadonlyMap<string, string>;
  /** Trust this project folder (`[projects."<dir>"] trust_level = "trusted"`). */
  trustProject?: string;
  /** Other spellings of the project folder that count as trusted already (its path before resolving links). */
  projectAliases?: readonly string[];
}

type Value = unknown;

function tomlEqual(a: Value, b: Value): boolean {
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => tomlEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && tomlEqual(a[k], b[k]));
  }
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/** Blank lines are `\n` or `\r\n` with nothing else on them. */
function blankLineAt(text: string, at: number): number {
  const m = /^[ \t]*\r?\n/.exec(text.slice(at, at + 200));
  return m ? m[0].length : 0;
}

/**
 * A removed block of lines takes one blank line with it, so that the lines around it keep the
 * spacing they had with each other: the one after it when the block follows a blank line (or
 * starts the file), else none; at the end of the file, the one before it.
 */
function withBlankLine(text: string, start: number, end: number): { start: number; end: number } {
  const afterBlank = start === 0 || /\n[ \t]*\r?\n$/.test(text.slice(Math.max(0, start - 200), start));
  if (end >= text.length && start > 0 && afterBlank) {
    const prev = text.lastIndexOf('\n', start - 2) + 1;
    if (text.slice(prev, start).trim() === '') return { start: prev, end };
  }
  if (afterBlank) {
    const n = blankLineAt(text, end);
    if (n > 0) return { start, end: end + n };
  }
  return { start, end };
}

/** Reads a hook state table's `trusted_hash` (entries are tables). */
function stateHash(v: unknown): unknown {
  return isObject(v) ? v['trusted_hash'] : undefined;
}

/**
 * Plans the edit of the user's config.toml: our `[hooks.state]` entries become exactly `add`
 * (entries already right are left alone), other hooks' entries follow their hooks when they moved,
 * and the project is trusted when asked. Text undefined: the file does not exist.
 */
export function planCodexConfig(text: string | undefined, file: string, opts: CodexConfigEditOptions): CodexConfigEdit {
  const old = text ?? '';
  const result: CodexConfigEdit = { ok: true, text: old, changed: false, diagnostics: [], added: [], removed: [], renamed: [] };
  const refuse = (d: Diagnostic): CodexConfigEdit => ({ ...result, ok: false, text: old, changed: false, diagnostics: [d] });

  let doc: Record<string, unknown>;
  try {
    doc = parse(old, { integersAsBigInt: true }) as Record<string, unknown>;
  } catch {
    const parsed = parseToml(old, file, new LineIndex(old));
    return refuse(
      parsed.diagnostics[0] ?? diagnostic('codex/toml-syntax', 'error', 'invalid TOML', { pointer: '' }),
    );
  }
  const hooks = doc['hooks'];
  const states = isObject(hooks) ? hooks['state'] : undefined;
  if (hooks !== undefined && !isObject(hooks)) return refuse(diagnostic('install/not-a-table', 'error', `\`hooks\` in \`${file}\` is not a table; it was left unchanged`, { pointer: '/hooks' }));
  if (states !== undefined && !isObject(states)) return refuse(diagnostic('install/not-a-table', 'error', `\`hooks.state\` in \`${file}\` is not a table; it was left unchanged`, { pointer: '/hooks/state' }));
  const current: Record<string, unknown> = isObject(states) ? states : {};

  // What the states should be.
  const wantedHash = new Map(opts.add.map((e) => [e.key, e.hash]));
  const remove: string[] = [];
  const add: CodexTrustEntry[] = [];
  for (const [key, v] of Object.entries(current)) {
    const want = wantedHash.get(key);
    if (want !== undefined && isObject(v) && stateHash(v) === want && v['enabled'] !== false) continue;
    if (want !== undefined || opts.isOurs(key, stateHash(v))) remove.push(key);
  }
  for (const e of opts.add) {
    const v = current[e.key];
    if (!(isObject(v) && stateHash(v) === e.hash && v['enabled'] !== false)) add.push(e);
  }
  const removing = new Set(remove);
  const rename: [string, string][] = [...opts.renames].filter(([from]) => Object.prototype.hasOwnProperty.call(current, from) && !removing.has(from));

  let projectTrusted: CodexConfigEdit['projectTrusted'];
  let projectEdit: 'value' | 'under-header' | 'append' | undefined;
  const projects = isObject(doc['projects']) ? doc['projects'] : {};
  if (opts.trustProject !== undefined) {
    const dirs = [opts.trustProject, ...(opts.projectAliases ?? [])];
    const level = (d: string) => {
      const p = projects[d] ?? projects[d.replace(/\/+$/, '')];
      return isObject(p) ? p['trust_level'] : undefined;
    };
    if (dirs.some((d) => level(d) === 'trusted')) projectTrusted = 'already';
    else {
      projectTrusted = 'written';
      projectEdit = isObject(projects[opts.trustProject]) ? (level(opts.trustProject) !== undefined ? 'value' : 'under-header') : 'append';
    }
  }
  result.projectTrusted = projectTrusted;
  if (remove.length === 0 && add.length === 0 && rename.length === 0 && projectEdit === undefined) return result;

  // The text edits.
  const statements = tomlStatements(old).map((s) => ({ ...s, names: namesOf(s) }));
  const eol = old.includes('\r\n') ? '\r\n' : '\n';
  const edits: { start: number; end: number; text: string }[] = [];
  const isState = ({ names }: { names: string[] | undefined }, key: string) => names?.[0] === 'hooks' && names[1] === 'state' && names[2] === key;
  for (const key of remove) {
    for (let i = 0; i < statements.length; i++) {
      const s = statements[i]!;
      if (!isState(s, key)) continue;
      if (s.kind === 'table' && s.names?.length === 3) {
        // The header and the pairs under it, up to the next header.
        let end = s.lineEnd;
        while (statements[i + 1]?.kind === 'pair') end = statements[++i]!.lineEnd;
        edits.push({ start: s.lineStart, end, text: '' });
      } else if (s.kind === 'pair') {
        edits.push({ start: s.lineStart, end: s.lineEnd, text: '' });
      }
    }
  }
  for (const [from, to] of rename) {
    for (const s of statements) {
      if (!isState(s, from)) continue;
      // The key segment that names the entry (the path's third), when this statement writes it.
      const base = (s.names?.length ?? 0) - s.keys.length;
      const seg = s.keys[2 - base];
      if (seg && base <= 2) edits.push({ start: seg.start, end: seg.end, text: tomlString(to) });
    }
  }
  let appended = '';
  if (projectEdit === 'value' || projectEdit === 'under-header') {
    const dir = opts.trustProject!;
    const isProject = ({ names }: { names: string[] | undefined }) => names?.[0] === 'projects' && names[1] === dir;
    const pair = statements.find((s) => s.kind === 'pair' && isProject(s) && s.names?.length === 3 && s.names[2] === 'trust_level');
    const header = statements.find((s) => s.kind === 'table' && isProject(s) && s.names?.length === 2);
    if (projectEdit === 'value' && pair?.valueStart !== undefined) edits.push({ start: pair.valueStart, end: pair.valueEnd!, text: '"trusted"' });
    else if (projectEdit === 'under-header' && header) edits.push({ start: header.lineEnd, end: header.lineEnd, text: `trust_level = "trusted"${eol}` });
    else appended += projectTrustText(dir, eol); // verification below refuses when this is not valid
  } else if (projectEdit === 'append') {
    appended += projectTrustText(opts.trustProject!, eol);
  }
  for (const e of add) appended += (appended === '' ? '' : eol) + trustEntryText(e, eol);

  edits.sort((a, b) => b.start - a.start || b.end - a.end);
  let next = old;
  let lastStart = Infinity;
  for (const e of edits) {
    if (e.end > lastStart) continue; // overlapping (a pair inside a removed table): already covered
    let { start, end } = e;
    if (e.text === '') ({ start, end } = withBlankLine(next, start, end));
    next = next.slice(0, start) + e.text + next.slice(end);
    lastStart = start;
  }
  if (appended !== '') {
    if (next.trim() === '') next = '';
    else {
      if (!next.endsWith('\n')) next += eol;
      if (!/\n[ \t]*\r?\n$/.test(next)) next += eol;
    }
    next += appended;
  }

  // What the document should now be, to check the text against.
  const expected = structuredClone(doc);
  if (remove.length > 0 || add.length > 0 || rename.length > 0) {
    const expHooks = (isObject(expected['hooks']) ? expected['hooks'] : (expected['hooks'] = {})) as Record<string, unknown>;
    const before = isObject(expHooks['state']) ? expHooks['state'] : {};
    const after: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(before)) {
      if (removing.has(k)) continue;
      after[opts.renames.get(k) ?? k] = v;
    }
    for (const e of add) after[e.key] = { trusted_hash: e.hash };
    expHooks['state'] = after;
  }
  if (projectEdit !== undefined) {
    const expProjects = (isObject(expected['projects']) ? expected['projects'] : (expected['projects'] = {})) as Record<string, unknown>;
    const p = isObject(expProjects[opts.trustProject!]) ? (expProjects[opts.trustProject!] as Record<string, unknown>) : {};
    expProjects[opts.trustProject!] = { ...p, trust_level: 'trusted' };
  }
  let got: unknown;
  try {
    got = parse(next, { integersAsBigInt: true });
  } catch {
    got = undefined;
  }
  const normalize = (v: unknown) => {
    // An emptied `[hooks.state]` (or `[hooks]`) header may stay behind: the same as no entries.
    const c = structuredClone(v) as Record<string, unknown>;
    if (isObject(c['hooks']) && isObject(c['hooks']['state']) && Object.keys(c['hooks']['state']).length === 0) delete c['hooks']['state'];
    if (isObject(c['hooks']) && Object.keys(c['hooks']).length === 0) delete c['hooks'];
    return c;
  };
  if (got === undefined || !tomlEqual(normalize(got), normalize(expected))) {
    const manual = [
      ...remove.map((k) => `remove the entry \`${k}\` from \`[hooks.state]\``),
      ...rename.map(([a, b]) => `rename the \`[hooks.state]\` entry \`${a}\` to \`${b}\``),
      ...add.map((e) => `add:\n${trustEntryText(e)}`),
      ...(projectEdit !== undefined ? [`add (or set):\n${projectTrustText(opts.trustProject!)}`] : []),
    ];
    return refuse(
      diagnostic('install/config-edit', 'error', `could not edit \`${file}\` without touching anything else; it was left unchanged`, {
        pointer: '/hooks/state',
        help: `make these changes yourself: ${manual.join('; ')}`,
      }),
    );
  }
  return { ok: true, text: next, changed: next !== old, diagnostics: [], added: add, removed: remove, renamed: rename, projectTrusted };
}

/** The project-trust status of a directory in a config.toml (text undefined: no file). */
export function codexProjectTrusted(text: string | undefined, dirs: readonly string[]): boolean {
  if (text === undefined) return false;
  try {
    const doc = parse(text) as Record<string, unknown>;
    const projects = isObject(doc['projects']) ? doc['projects'] : {};
    return dirs.some((d) => {
      const p = projects[d] ?? projects[d.replace(/\/+$/, '')];
      return isObject(p) && p['trust_level'] === 'trusted';
    });
  } catch {
    return false;
  }
}

/** Whether config.toml turns Codex's hooks off (`[features] hooks = false`, or its old name `codex_hooks`). */
export function codexHooksDisabled(text: string | undefined, file: string): Diagnostic | undefined {
  if (text === undefined) return undefined;
  const loaded = loadCodexFile(text, file, { layer: 'user' });
  const f = loaded.hooksFeature;
  if (!f || f.enabled) return undefined;
  return diagnostic('install/hooks-disabled', 'warning', `hooks are turned off in \`${file}\`: codex runs none of them`, {
    ...(f.span ? { span: f.span } : {}),
    pointer: f.pointer,
    help: 'set the feature back to `true` (or remove it) for the policy to run',
  });
}

/** The states of a config.toml: key -> trusted_hash (undefined for an entry without one). */
export function codexHookStates(text: string | undefined): Map<string, { trustedHash?: string; enabled?: boolean }> {
  const out = new Map<string, { trustedHash?: string; enabled?: boolean }>();
  if (text === undefined) return out;
  try {
    const doc = parse(text) as Record<string, unknown>;
    const states = isObject(doc['hooks']) && isObject(doc['hooks']['state']) ? doc['hooks']['state'] : {};
    for (const [k, v] of Object.entries(states)) {
      if (!isObject(v)) continue;
      const s: { trustedHash?: string; enabled?: boolean } = {};
      if (typeof v['trusted_hash'] === 'string') s.trustedHash = v['trusted_hash'];
      if (typeof v['enabled'] === 'boolean') s.enabled = v['enabled'];
      out.set(k.trim(), s);
    }
  } catch {
    // an unreadable config trusts nothing
  }
  return out;
}
