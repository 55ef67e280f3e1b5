/**
 * The door to the engine: IR from a file, a cache or a bridge is checked against the JSON Schema
 * and the rules the schema cannot say (a rule form its seam does not have, a `limit` off the stop
 * seam, ...). Problems come back as diagnostics with JSON pointers; nothing throws.
 */
import { lazyRequire } from './require.js';
import type { Ajv as AjvClass, ErrorObject, ValidateFunction } from 'ajv';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import { IR_SCHEMA } from './ir-schema.js';
import { AGENT_EVENT_SEAM, IR_VERSION, SEAM_EFFECTS, TOOL_SEAMS, type PolicyIR } from './ir.js';
import { agentEventInfo, hookProtocol, hookProtocols } from './hooks/protocol.js';
import { checkRegex } from './match/index.js';

/**
 * Ajv, loaded at its first use: a process that validates nothing (a hook answering from its
 * cached policy) never loads it. Shared with the bridges' schemas.
 */
let ajvClass: typeof AjvClass | undefined;
export function loadAjv(): typeof AjvClass {
  return (ajvClass ??= (lazyRequire('ajv') as { Ajv: typeof AjvClass }).Ajv);
}

let validator: ValidateFunction | undefined;
function schemaValidator(): ValidateFunction {
  if (!validator) validator = new (loadAjv())({ allErrors: true, strict: true, allowUnionTypes: true }).compile(IR_SCHEMA);
  return validator;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `missing property \`${String(p['missingProperty'])}\``;
    case 'additionalProperties':
      return `unknown property \`${String(p['additionalProperty'])}\``;
    case 'enum':
      return `must be one of ${(p['allowedValues'] as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}`;
    case 'const':
      return `must be \`${JSON.stringify(p['allowedValue'])}\``;
    case 'type':
      return `must be ${String(p['type'])}`;
    default:
      return (e.message ?? 'is invalid').toLowerCase();
  }
}

export interface ValidateResult {
  ir: PolicyIR | undefined;
  diagnostics: Diagnostic[];
}

export function validateIR(value: unknown): ValidateResult {
  if (typeof value === 'object' && value !== null && 'version' in value && (value as { version: unknown }).version !== IR_VERSION) {
    return {
      ir: undefined,
      diagnostics: [
        diagnostic('ir/version', 'error', `unsupported IR version \`${JSON.stringify((value as { version: unknown }).version)}\``, {
          pointer: '/version',
          help: `this dshpolicy reads IR version ${IR_VERSION}; recompile the policy`,
        }),
      ],
    };
  }
  const validate = schemaValidator();
  if (!validate(value)) {
    // oneOf failures repeat every branch's complaint; keep the deepest, distinct ones.
    const seen = new Set<string>();
    const diagnostics: Diagnostic[] = [];
    for (const e of validate.errors ?? []) {
      if (e.keyword === 'oneOf' || e.keyword === 'anyOf') continue;
      const msg = describe(e);
      const key = `${e.instancePath}|${msg}`;
      if (seen.has(key)) continue;
      seen.add(key);
      diagnostics.push(diagnostic('ir/schema', 'error', msg, { pointer: e.instancePath || '/' }));
      if (diagnostics.length >= 50) break;
    }
    if (diagnostics.length === 0) diagnostics.push(diagnostic('ir/schema', 'error', 'the IR does not match its schema', { pointer: '/' }));
    return { ir: undefined, diagnostics };
  }
  const ir = value as PolicyIR;
  const diagnostics: Diagnostic[] = [];
  const ids = new Set<string>();
  ir.rules.forEach((r, i) => {
    const at = `/rules/${i}`;
    if (ids.has(r.id)) diagnostics.push(diagnostic('ir/duplicate-id', 'error', `duplicate rule id \`${r.id}\``, { pointer: `${at}/id` }));
    ids.add(r.id);
    if (r.hook && !hookProtocol(r.hook.dialect)) {
      const known = hookProtocols().map((p) => `\`${p.dialect}\``).join(', ');
      diagnostics.push(diagnostic('ir/unknown-dialect', 'error', `no agent protocol is registered for the hook dialect \`${r.hook.dialect}\``, { pointer: `${at}/hook/dialect`, help: known ? `known dialects: ${known}` : 'register the agents\' protocols (the package\'s entry points do)' }));
    }
    if (r.seam === AGENT_EVENT_SEAM) {
      if (r.effect !== 'run' || !r.hook || r.hook.event === undefined || !agentEventInfo(r.hook.dialect, r.hook.event)) {
        diagnostics.push(diagnostic('ir/agent-event', 'error', '`agent-event` rules are `run` rules whose hook names an event of its dialect without a seam', { pointer: at }));
      }
    } else if (!SEAM_EFFECTS[r.seam].includes(r.effect)) {
      diagnostics.push(diagnostic('ir/bad-effect', 'error', `\`${r.effect}\` is not a rule of the \`${r.seam}\` seam`, { pointer: `${at}/effect` }));
    }
    if ((r.tools || (r.selectors && r.selectors.length > 0)) && !(TOOL_SEAMS as readonly string[]).includes(r.seam)) {
      diagnostics.push(diagnostic('ir/no-tools', 'error', `the \`${r.seam}\` seam has no tools to select`, { pointer: at }));
    }
    if ((r.effect === 'limit') !== (r.limit !== undefined)) {
      diagnostics.push(diagnostic('ir/limit', 'error', '`limit` rules, and only they, carry a `limit` count', { pointer: at }));
    }
    if ((r.effect === 'run') !== (r.hook !== undefined)) {
      diagnostics.push(diagnostic('ir/hook', 'error', '`run` rules, and only they, carry a `hook`', { pointer: at }));
    }
    if (r.effect === 'context' && r.text === undefined) {
      diagnostics.push(diagnostic('ir/context', 'error', '`context` rules need a `text`', { pointer: at }));
    }
    if (r.when) checkExprRegexes(r.when, `${at}/when`, diagnostics);
  });
  if (diagnostics.length > 0) return { ir: undefined, diagnostics };
  return { ir, diagnostics: [] };
}

function checkExprRegexes(e: unknown, at: string, out: Diagnostic[]): void {
  if (typeof e !== 'object' || e === null) return;
  const x = e as Record<string, unknown>;
  if (x['op'] === 'compare' && typeof x['value'] === 'object' && x['value'] !== null && !Array.isArray(x['value'])) {
    const v = x['value'] as { regex: string; flags: string };
    const err = checkRegex(v.regex, v.flags);
    if (err) out.push(diagnostic('ir/invalid-regex', 'error', err.message, { pointer: `${at}/value/regex` }));
  }
  if (Array.isArray(x['args'])) (x['args'] as unknown[]).forEach((a, i) => checkExprRegexes(a, `${at}/args/${i}`, out));
  if (x['arg']) checkExprRegexes(x['arg'], `${at}/arg`, out);
}
