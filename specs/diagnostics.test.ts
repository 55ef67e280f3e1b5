import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../engine/index.js';
import { expectDiagnostics } from './diagnostics.js';

const d: Diagnostic = {
  code: 'check/x',
  severity: 'error',
  message: 'bad `thing`',
  pointer: '/a',
  span: { file: 'f', start: { line: 2, column: 3, offset: 9 }, end: { line: 2, column: 4, offset: 10 } },
};

describe('expectDiagnostics', () => {
  it('accepts a match on the named fields only', () => {
    expectDiagnostics([d], [{ code: 'check/x', at: '2:3', message: '`thing`' }], 'x');
    expectDiagnostics([d], [{ code: 'check/x', pointer: '/a', file: 'f' }], 'x');
  });
  it('fails on a wanted diagnostic that is missing or differs', () => {
    expect(() => expectDiagnostics([d], [{ code: 'check/x', at: '2:4' }], 'x')).toThrow();
    expect(() => expectDiagnostics([], [{ code: 'check/x' }], 'x')).toThrow();
  });
  it('fails on a diagnostic nobody wanted', () => {
    expect(() => expectDiagnostics([d], [], 'x')).toThrow();
    expect(() => expectDiagnostics([d, d], [{ code: 'check/x' }], 'x')).toThrow();
  });
});
