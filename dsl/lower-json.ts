/**
 * Object literals (test payloads) as plain JSON values.
 */
import type { Span } from '../engine/index.js';
import type { ValueNode } from './ast.js';
import { deref, describeValue, type FileScope } from './scope.js';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Why a part of a literal is not JSON, and where. */
export type JsonProblem = (span: Span, code: 'check/bad-test-value' | 'check/duplicate-key', message: string) => void;

/**
 * The JSON value of a literal, with `let` names replaced. Regexes and durations are not JSON, and
 * an object names each key once: such problems are passed to `problem` and give undefined.
 */
export function toJson(node: ValueNode, scope: FileScope, problem: JsonProblem): Json | undefined {
  switch (node.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return node.value;
    case 'null':
      return null;
    case 'regex':
    case 'duration':
      problem(node.span, 'check/bad-test-value', `${describeValue(node)} is not a JSON value`);
      return undefined;
    case 'ref': {
      const value = deref(node, scope);
      if (value === null) return undefined;
      // Problems inside a named value are reported where the name is used.
      let bad = false;
      const json = toJson(value, scope, (_span, code, message) => {
        if (!bad) problem(node.span, code, `in \`${node.name}\`: ${message}`);
        bad = true;
      });
      return bad ? undefined : json;
    }
    case 'list': {
      const out: Json[] = [];
      let ok = true;
      for (const item of node.items) {
        const value = toJson(item, scope, problem);
        if (value === undefined) ok = false;
        else out.push(value);
      }
      return ok ? out : undefined;
    }
    case 'object': {
      const out: { [key: string]: Json } = {};
      const seen = new Set<string>();
      let ok = true;
      for (const entry of node.entries) {
        if (seen.has(entry.key)) {
          problem(entry.keySpan, 'check/duplicate-key', `key \`${entry.key}\` is given twice`);
          ok = false;
          continue;
        }
        seen.add(entry.key);
        const value = toJson(entry.value, scope, problem);
        if (value === undefined) ok = false;
        else setKey(out, entry.key, value);
      }
      return ok ? out : undefined;
    }
  }
}

/** Sets an own property, also for keys such as `__proto__`. */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function isJsonObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
