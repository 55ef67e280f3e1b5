/**
 * `test` blocks to IR test cases. The event of a case is built here, once, for both the checks
 * (which report every problem) and the lowering (which runs only when there is none).
 */
import { HOOK_EVENT_SEAMS, SEAM_DECISIONS, SEAMS, TOOL_SEAMS, type AnyDecisionWord, type RegexValue, type Seam, type Span, type TestCase } from '../engine/index.js';
import type { TestBlock, TestCaseNode } from './ast.js';
import { normalizeFlags } from './lower-expr.js';
import { isJsonObject, setKey, toJson, type Json } from './lower-json.js';
import type { FileScope } from './scope.js';
import { codeList, didYouMean } from './suggest.js';


export type CaseProblem = (code: string, message: string, span: Span, help?: string) => void;

export interface BuiltEvent {
  seam: Seam;
  event: Record<string, unknown>;
}

/** The seam and fixture event of a case; undefined when the case is malformed (reported). */
export function buildTestEvent(c: TestCaseNode, scope: FileScope, problem: CaseProblem): BuiltEvent | undefined {
  const word = c.seam.name;
  const json = (node: Parameters<typeof toJson>[0]): Json | undefined => toJson(node, scope, (span, code, message) => problem(code, message, span));

  if (word === 'event') return buildRawEvent(c, json, problem);
  if (!(SEAMS as readonly string[]).includes(word)) {
    problem('check/unknown-seam', `\`${word}\` is not a seam`, c.seam.span, didYouMean(word, [...SEAMS, 'event']) ?? `test cases start with ${codeList([...SEAMS, 'event'])}`);
    return undefined;
  }
  const seam = word as Seam;
  const event: Record<string, unknown> = { seam };
  let ok = true;
  const fail = (message: string, span: Span, help?: string): void => {
    problem('check/bad-test-case', message, span, help);
    ok = false;
  };

  if (TOOL_SEAMS.includes(seam)) {
    if (!c.tool) fail(`a \`${seam}\` case needs a tool`, c.seam.span, `e.g. \`${seam} Bash { command: "ls" } => ...\``);
    else if (c.tool.name.includes('*')) fail(`a test case names one tool, not the pattern \`${c.tool.name}\``, c.tool.span);
    else event.tool = c.tool.name;
    if (!c.payload || c.payload.kind !== 'object') {
      fail(`a \`${seam}\` case needs the tool input as an object`, c.payload?.span ?? c.seam.span, `e.g. \`${seam} Bash { command: "ls" } => ...\``);
    } else {
      const input = json(c.payload);
      if (input === undefined) ok = false;
      else event.input = input;
    }
  } else {
    if (c.tool) fail(`a \`${seam}\` case takes no tool`, c.tool.span, `the \`${seam}\` seam has no tools`);
    if (c.payload?.kind === 'string') {
      if (seam === 'prompt') event.prompt = c.payload.value;
      else fail(`a \`${seam}\` case takes an object, not a string`, c.payload.span, `e.g. \`${seam} { cwd: "/repo" } => ...\``);
    } else if (c.payload) {
      const fields = json(c.payload);
      if (fields === undefined) ok = false;
      else if (isJsonObject(fields)) ok = merge(event, fields, c.payload.entries, problem) && ok;
    }
  }

  if (c.extra) {
    const fields = json(c.extra);
    if (fields === undefined) ok = false;
    else if (isJsonObject(fields)) ok = merge(event, fields, c.extra.entries, problem) && ok;
  }

  if (seam === 'prompt' && ok && typeof event.prompt !== 'string') {
    fail('a `prompt` case needs the prompt text', c.payload?.span ?? c.seam.span, 'e.g. `prompt "deploy to prod" => block`');
  }
  if (seam === 'stop') {
    if (!('turn' in event)) event.turn = [];
    if (!('stop_hook_active' in event)) event.stop_hook_active = false;
  }
  if (seam === 'session-start' && !('source' in event)) event.source = 'startup';
  return ok ? { seam, event } : undefined;
}

/** Adds `fields` to `event`; a field the case already gave is a problem. */
function merge(
  event: Record<string, unknown>,
  fields: { [key: string]: Json },
  entries: readonly { key: string; keySpan: Span }[],
  problem: CaseProblem,
): boolean {
  let ok = true;
  for (const [key, value] of Object.entries(fields)) {
    if (Object.prototype.hasOwnProperty.call(event, key)) {
      const span = entries.find((e) => e.key === key)?.keySpan;
      const help = key === 'seam' ? 'the seam is the first word of the case' : undefined;
      if (span) problem('check/bad-test-case', `\`${key}\` is already given by this case`, span, help);
      ok = false;
      continue;
    }
    setKey(event, key, value);
  }
  return ok;
}

function buildRawEvent(
  c: TestCaseNode,
  json: (node: Parameters<typeof toJson>[0]) => Json | undefined,
  problem: CaseProblem,
): BuiltEvent | undefined {
  let ok = true;
  if (c.tool) {
    problem('check/bad-test-case', 'an `event` case takes no tool', c.tool.span, 'the event object names the tool in `tool_name`');
    ok = false;
  }
  if (c.extra) {
    problem('check/bad-test-case', 'an `event` case takes no `with`', c.extra.span, 'put every field in the event object');
    ok = false;
  }
  if (!c.payload || c.payload.kind !== 'object') {
    problem('check/bad-test-case', 'an `event` case needs the event as an object', c.payload?.span ?? c.seam.span, 'e.g. `event { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } } => allow`');
    return undefined;
  }
  const raw = json(c.payload);
  if (!isJsonObject(raw)) return undefined;
  const name = raw.hook_event_name;
  const known = Object.keys(HOOK_EVENT_SEAMS);
  if (typeof name !== 'string') {
    problem('check/bad-test-case', 'an `event` case needs a `hook_event_name`', c.payload.span, `hook events are ${codeList(known)}`);
    return undefined;
  }
  const seam = Object.prototype.hasOwnProperty.call(HOOK_EVENT_SEAMS, name) ? HOOK_EVENT_SEAMS[name] : undefined;
  if (!seam) {
    const span = c.payload.entries.find((e) => e.key === 'hook_event_name')?.value.span ?? c.payload.span;
    problem('check/unknown-hook-event', `\`${name}\` is not a hook event this version handles`, span, didYouMean(name, known) ?? `hook events are ${codeList(known)}`);
    return undefined;
  }
  return ok ? { seam, event: raw } : undefined;
}

/** A regex matching `text` literally. */
export function literalRegex(text: string): RegexValue {
  return { regex: text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&'), flags: '' };
}

export function isDecisionOf(seam: Seam, word: string): word is AnyDecisionWord {
  return (SEAM_DECISIONS[seam] as readonly string[]).includes(word);
}

/** The block's cases as IR test cases, named `<block>: line <n>` (made unique when needed). */
export function lowerTestBlock(block: TestBlock, scope: FileScope, taken: Set<string>): TestCase[] {
  const out: TestCase[] = [];
  for (const c of block.cases) {
    const built = buildTestEvent(c, scope, () => undefined);
    if (!built || !isDecisionOf(built.seam, c.expect.name)) continue;
    const line = c.span.start.line;
    let name = `${block.name.value}: line ${line}`;
    if (taken.has(name)) name = `${block.name.value}: ${c.span.file}:${line}`;
    if (taken.has(name)) name = `${block.name.value}: ${c.span.file}:${line}:${c.span.start.column}`;
    for (let n = 2; taken.has(name); n++) name = `${block.name.value}: ${c.span.file}:${line}:${c.span.start.column} #${n}`;
    taken.add(name);
    const tc: TestCase = { name, event: built.event, expect: c.expect.name };
    if (c.because) tc.because = c.because.kind === 'regex' ? { regex: c.because.source, flags: normalizeFlags(c.because.flags) } : literalRegex(c.because.value);
    tc.span = c.span;
    out.push(tc);
  }
  return out;
}
