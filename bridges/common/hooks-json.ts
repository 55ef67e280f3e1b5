/**
 * Installing dshpolicy's own hook into a hooks configuration file (`{"hooks": {Event: [groups]}}`),
 * for the agents that keep their hooks in one: Claude Code's settings.json (claude/install.ts)
 * and Codex's hooks.json (codex/install.ts). Pure text in, text out. The file's other content and
 * its formatting are kept (the edits replace, insert or remove only the items that change, found
 * in the shared value tree of json.ts), and our handlers are told apart from everyone else's by
 * `"statusMessage": "dshpolicy"`, so uninstalling removes exactly what installing wrote.
 *
 * Per event we write one matcher group holding one handler. Installing again with the same wanted
 * groups changes nothing; with other groups, only ours are replaced (in place, so the positions of
 * other groups do not move), added at the end of an event's list, or removed (with the groups,
 * events and `hooks` object that become empty because of it). Which file the agent reads, and
 * what groups it wants, is the agent's: it passes its own strict reader as `check`.
 */
import { diagnostic, LineIndex, type Diagnostic, type Span } from '../../engine/index.js';
import { readJson, type JsonLimits } from './json.js';
import { keyOf, prop, type Prop, type ValueNode } from './tree.js';

/** The `statusMessage` of every handler dshpolicy installs: how uninstall finds ours and nothing else. */
export const DSHPOLICY_MARK = 'dshpolicy';

/**
 * Seconds; the `timeout` of a handler of ours when none is given. `dshpolicy install` gives the
 * one its policy needs (bridges/handler-timeout.ts).
 */
export const INSTALL_TIMEOUT_SEC = 30;

export type JsonObject = Record<string, unknown>;

export interface HookGroup {
  matcher?: string;
  hooks: JsonObject[];
}

export interface WantedGroup {
  event: string;
  group: HookGroup;
}

/** One of our handlers in a hooks document. */
export interface OurHandler {
  event: string;
  groupIndex: number;
  handlerIndex: number;
  handler: JsonObject;
  /** The group's matcher, when it has a string one. */
  matcher?: string;
}

export interface HooksJsonEdit {
  /** False when the file cannot be edited safely; `diagnostics` then say why, and `text` is the old text. */
  ok: boolean;
  /** The new text (the old one when nothing changes). */
  text: string;
  changed: boolean;
  /** The file did not exist (or was blank) and is written from scratch. */
  created: boolean;
  diagnostics: Diagnostic[];
  /** Our handlers before and after the edit, in file order. */
  before: OurHandler[];
  after: OurHandler[];
}

export interface HooksJsonEditOptions {
  /** The agent's strict reader: its errors (a file the agent cannot read) make the edit refuse. */
  check: (text: string, file: string) => Diagnostic[];
  /** The agent's name, for messages (`claude code`, `codex`). */
  agentName: string;
}

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function isDshpolicyHandler(h: unknown): boolean {
  return isObject(h) && h['statusMessage'] === DSHPOLICY_MARK;
}

/** A group of ours: every handler in it is ours (a group someone added a handler to is not). */
function isOurGroup(g: unknown): boolean {
  return isObject(g) && Array.isArray(g['hooks']) && g['hooks'].length > 0 && g['hooks'].every(isDshpolicyHandler);
}

/** Our handlers in a parsed hooks document (`{"hooks": {...}}`), in file order. */
export function findDshpolicyHandlers(doc: unknown): OurHandler[] {
  const out: OurHandler[] = [];
  const hooks = isObject(doc) ? doc['hooks'] : undefined;
  if (!isObject(hooks)) return out;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((g, groupIndex) => {
      if (!isObject(g) || !Array.isArray(g['hooks'])) return;
      const matcher = typeof g['matcher'] === 'string' ? g['matcher'] : undefined;
      g['hooks'].forEach((h, handlerIndex) => {
        if (!isDshpolicyHandler(h)) return;
        const found: OurHandler = { event, groupIndex, handlerIndex, handler: h as JsonObject };
        if (matcher !== undefined) found.matcher = matcher;
        out.push(found);
      });
    });
  }
  return out;
}

/** Structural equality of JSON values (key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** How the file is laid out: its indent unit and line end; undefined for a one-line file (edits stay compact). */
export interface Layout {
  unit: string;
  eol: string;
}

export function formattingOf(text: string): Layout | undefined {
  if (!text.trimEnd().includes('\n')) return undefined;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /\n([ \t]+)\S/.exec(text);
  const ws = m?.[1];
  if (ws === undefined) return { unit: '  ', eol };
  if (ws.startsWith('\t')) return { unit: '\t', eol };
  return { unit: ws, eol };
}

function groupsObject(wanted: readonly WantedGroup[]): JsonObject {
  const o: JsonObject = {};
  for (const w of wanted) o[w.event] = [w.group];
  return o;
}

/** The members named `key` of an object node, every one written. */
function propsNamed(obj: ValueNode | undefined, key: string): Prop[] {
  if (!obj || obj.kind !== 'object') return [];
  return (obj.props ?? []).filter((p) => p.key === key);
}

/**
 * What the edits read: the text the agent's own check accepted (strict JSON, no deeper than
 * either agent reads: Claude Code 128 levels, Codex 127), or that text after edits, which write
 * strict JSON a few levels deep.
 */
const EDITED: JsonLimits = { maxDepth: 128, depthInComments: true };

/** Object keys and array indexes from the document's root. */
type Path = (string | number)[];
type Op = { path: Path; value: unknown; insert?: boolean };
type Edit = { offset: number; length: number; content: string };
type Extent = { start: number; end: number };

/** The node at `path`: a key names the first member written with it, an index an array element. */
function nodeAtPath(root: ValueNode, path: Path): ValueNode | undefined {
  let node: ValueNode | undefined = root;
  for (const seg of path) {
    if (!node) return undefined;
    if (typeof seg === 'string') node = node.kind === 'object' ? prop(node, seg) : undefined;
    else node = node.kind === 'array' && seg >= 0 ? node.items?.[seg] : undefined;
  }
  return node;
}

/** Where a node is written. */
function extentOf(node: ValueNode): Extent {
  return { start: node.span!.start.offset, end: node.span!.end.offset };
}

/** Where the items of an object (each member from its key to the end of its value) or an array are written. */
function itemExtents(container: ValueNode): Extent[] {
  if (container.kind === 'array') return (container.items ?? []).map(extentOf);
  return (container.props ?? []).map((p) => ({ start: keyOf(p.node).span!.start.offset, end: p.node.span!.end.offset }));
}

/** The whitespace that starts the line `offset` is on. */
function indentOfLine(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))![0];
}

/** Whether only whitespace precedes `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return text.slice(start, offset).trim() === '';
}

/** `value` as JSON laid out like the file, its continuation lines indented by `base`. */
function layOut(value: unknown, layout: Layout | undefined, base: string): string {
  if (!layout) return JSON.stringify(value);
  return JSON.stringify(value, null, layout.unit).split('\n').join(layout.eol + base);
}

/**
 * The edit for one operation. Insertions and replacements are laid out like the file around them
 * and touch nothing else (jsonc-parser's own formatting of an edit reflows the neighbouring
 * items on its lines); a removal takes the item with the comma before it (or, for a first item,
 * the comma after it), so that a removal undoes an insertion exactly.
 */
function editFor(text: string, op: Op, layout: Layout | undefined): Edit | undefined {
  const root = readJson(text, { file: '', lines: new LineIndex(text) }, EDITED).root;
  if (!root) return undefined;
  const node = nodeAtPath(root, op.path);
  if (op.value === undefined) {
    if (!node || op.path.length === 0) return undefined;
    const container = nodeAtPath(root, op.path.slice(0, -1))!;
    const last = op.path[op.path.length - 1]!;
    const siblings = itemExtents(container);
    const i = typeof last === 'number' ? last : (container.props ?? []).findIndex((p) => p.key === last);
    const item = siblings[i]!;
    const prev = siblings[i - 1];
    if (prev) return { offset: prev.end, length: item.end - prev.end, content: '' };
    const next = siblings[i + 1];
    if (next) return { offset: item.start, length: next.start - item.start, content: '' };
    const outer = extentOf(container);
    return { offset: outer.start + 1, length: outer.end - outer.start - 2, content: '' };
  }
  if (node && !op.insert) {
    const { start, end } = extentOf(node);
    const pretty = layout !== undefined && text.slice(start, end).includes('\n');
    return { offset: start, length: end - start, content: layOut(op.value, pretty ? layout : undefined, indentOfLine(text, start)) };
  }
  // An insertion at the end of an array, or of a new property at the end of an object.
  const container = nodeAtPath(root, op.path.slice(0, -1));
  if (!container || (container.kind !== 'array' && container.kind !== 'object')) return undefined;
  const key = op.insert ? '' : `${JSON.stringify(String(op.path[op.path.length - 1]))}:${layout ? ' ' : ''}`;
  const items = itemExtents(container);
  const last = items[items.length - 1];
  if (last) {
    if (layout && startsLine(text, last.start)) {
      const base = indentOfLine(text, last.start);
      return { offset: last.end, length: 0, content: `,${layout.eol}${base}${key}${layOut(op.value, layout, base)}` };
    }
    return { offset: last.end, length: 0, content: `,${layout ? ' ' : ''}${key}${JSON.stringify(op.value)}` };
  }
  const outer = extentOf(container);
  const inner = { offset: outer.start + 1, length: outer.end - outer.start - 2 };
  if (!layout) return { ...inner, content: `${key}${JSON.stringify(op.value)}` };
  const base = indentOfLine(text, outer.start);
  const itemBase = base + layout.unit;
  return { ...inner, content: `${layout.eol}${itemBase}${key}${layOut(op.value, layout, itemBase)}${layout.eol}${base}` };
}

/**
 * Edits a hooks document so that our handlers are exactly `wanted` (one group per event), leaving
 * everything else as it is. `text` undefined: the file does not exist.
 */
export function editHooksJson(text: string | undefined, file: string, wanted: readonly WantedGroup[], opts: HooksJsonEditOptions): HooksJsonEdit {
  const old = text ?? '';
  const refuse = (diagnostics: Diagnostic[]): HooksJsonEdit => ({ ok: false, text: old, changed: false, created: false, diagnostics, before: [], after: [] });

  if (old.trim() === '') {
    if (wanted.length === 0) return { ok: true, text: old, changed: false, created: false, diagnostics: [], before: [], after: [] };
    const fresh = `${JSON.stringify({ hooks: groupsObject(wanted) }, null, 2)}\n`;
    return { ok: true, text: fresh, changed: true, created: true, diagnostics: [], before: [], after: findDshpolicyHandlers(JSON.parse(fresh)) };
  }

  const unreadable = opts.check(old, file).filter((d) => d.severity === 'error');
  if (unreadable.length > 0) {
    return refuse([
      ...unreadable,
      diagnostic('install/unreadable-config', 'error', `\`${file}\` is not a hooks configuration ${opts.agentName} can read; it was left unchanged`, {
        help: 'fix the file (or move it away) and install again',
      }),
    ]);
  }
  const bom = old.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const body = old.slice(bom.length);
  const lines = new LineIndex(old);
  const at = (where: { span?: Span } | undefined) => where?.span ?? lines.span(file, 0, 0);
  const root = readJson(old, { file, lines }, EDITED).root;
  const doc: unknown = JSON.parse(body);
  if (!isObject(doc)) {
    return refuse([diagnostic('install/not-an-object', 'error', `the top level of \`${file}\` is not an object; it was left unchanged`, { span: at(root), pointer: '' })]);
  }
  const hookProps = propsNamed(root, 'hooks');
  if (hookProps.length > 1) {
    return refuse([
      diagnostic('install/duplicate-key', 'error', '`hooks` appears more than once; it was left unchanged', {
        span: at(keyOf(hookProps[0]!.node)),
        pointer: '/hooks',
        help: `${opts.agentName} reads only the last one; merge them into one`,
      }),
    ]);
  }
  const hooksNode = hookProps[0]?.node;
  const hooks = doc['hooks'];
  if (hooks !== undefined && !isObject(hooks)) {
    return refuse([diagnostic('install/not-an-object', 'error', '`hooks` is not an object; the file was left unchanged', { span: at(hooksNode), pointer: '/hooks' })]);
  }
  const before = findDshpolicyHandlers(doc);
  const wantedBy = new Map(wanted.map((w) => [w.event, w.group]));
  const touched = new Set([...wantedBy.keys(), ...before.map((o) => o.event)]);
  for (const event of touched) {
    const props = propsNamed(hooksNode, event);
    if (props.length > 1) {
      return refuse([
        diagnostic('install/duplicate-key', 'error', `\`${event}\` appears more than once in \`hooks\`; the file was left unchanged`, {
          span: at(keyOf(props[0]!.node)),
          pointer: `/hooks/${event}`,
          help: `${opts.agentName} reads only the last one; merge them into one`,
        }),
      ]);
    }
    const list = isObject(hooks) ? hooks[event] : undefined;
    if (list !== undefined && !Array.isArray(list)) {
      return refuse([
        diagnostic('install/not-an-array', 'error', `\`hooks.${event}\` is not a list of matcher groups; the file was left unchanged`, {
          span: at(props[0]?.node),
          pointer: `/hooks/${event}`,
        }),
      ]);
    }
  }

  // The edits, in an order that keeps every later path valid: replacements, removals from the
  // end of each list, then additions at the end.
  const replace: Op[] = [];
  const remove: Op[] = [];
  const add: Op[] = [];
  const expected = structuredClone(doc);
  if (!isObject(hooks)) {
    if (wanted.length > 0) {
      add.push({ path: ['hooks'], value: groupsObject(wanted) });
      expected['hooks'] = groupsObject(wanted);
    }
  } else {
    const expHooks = expected['hooks'] as JsonObject;
    const removedEvents: string[] = [];
    for (const [event, list] of Object.entries(hooks)) {
      if (!Array.isArray(list) || !touched.has(event)) continue;
      const want = wantedBy.get(event);
      const keep = want ? list.findIndex(isOurGroup) : -1;
      const expList = [...list] as unknown[];
      const drops: Op[] = [];
      let removedSomething = false;
      for (let gi = list.length - 1; gi >= 0; gi--) {
        if (gi === keep) continue;
        const g = list[gi];
        if (isOurGroup(g)) {
          drops.push({ path: ['hooks', event, gi], value: undefined });
          expList.splice(gi, 1);
          removedSomething = true;
        } else if (isObject(g) && Array.isArray(g['hooks'])) {
          const handlers = g['hooks'];
          const kept = [...handlers];
          for (let hi = handlers.length - 1; hi >= 0; hi--) {
            if (!isDshpolicyHandler(handlers[hi])) continue;
            drops.push({ path: ['hooks', event, gi, 'hooks', hi], value: undefined });
            kept.splice(hi, 1);
            removedSomething = true;
          }
          if (kept.length !== handlers.length) expList[expList.indexOf(g)] = { ...g, hooks: kept };
        }
      }
      if (want && keep >= 0) {
        if (!jsonEqual(list[keep], want)) replace.push({ path: ['hooks', event, keep], value: want });
        expList[expList.indexOf(list[keep])] = want;
      } else if (want) {
        add.push({ path: ['hooks', event, -1], value: want, insert: true });
        expList.push(want);
      }
      if (!want && removedSomething && expList.length === 0) {
        remove.push({ path: ['hooks', event], value: undefined });
        delete expHooks[event];
        removedEvents.push(event);
      } else {
        remove.push(...drops);
        expHooks[event] = expList;
      }
    }
    for (const w of wanted) {
      if (hooks[w.event] === undefined) {
        add.push({ path: ['hooks', w.event], value: [w.group] });
        expHooks[w.event] = [w.group];
      }
    }
    if (removedEvents.length > 0 && Object.keys(expHooks).length === 0) {
      // The `hooks` object is empty only because ours went: it goes too.
      remove.splice(0, remove.length, { path: ['hooks'], value: undefined });
      delete expected['hooks'];
    }
  }

  const layout = formattingOf(body);
  let next = body;
  for (const op of [...replace, ...remove, ...add]) {
    const e = editFor(next, op, layout);
    if (e) next = next.slice(0, e.offset) + e.content + next.slice(e.offset + e.length);
  }
  let result: unknown;
  try {
    result = JSON.parse(next);
  } catch {
    result = undefined;
  }
  if (!jsonEqual(result, expected)) {
    return refuse([
      diagnostic('install/edit-failed', 'error', `could not edit \`${file}\` without touching anything else; it was left unchanged`, {
        span: at(hooksNode ?? root),
        pointer: '/hooks',
        help: 'this is a bug in dshpolicy; please report it with the file',
      }),
    ]);
  }
  const newText = bom + next;
  return { ok: true, text: newText, changed: newText !== old, created: false, diagnostics: [], before, after: findDshpolicyHandlers(result) };
}
