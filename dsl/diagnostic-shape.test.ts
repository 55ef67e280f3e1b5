/**
 * The grammar declares the diagnostic shape again (grammar/errors.ts), since it may import nothing;
 * the DSL passes its diagnostics on as the engine's. The two must stay one shape: `tsc -b` checks
 * these assertions (at run time they do nothing).
 */
import { describe, expectTypeOf, it } from 'vitest';
import type * as Engine from '../engine/index.js';
import type * as Grammar from '../grammar/index.js';

describe('the grammar’s diagnostic shape', () => {
  it('is the engine’s', () => {
    expectTypeOf<Grammar.Diagnostic>().toEqualTypeOf<Engine.Diagnostic>();
    expectTypeOf<Grammar.Span>().toEqualTypeOf<Engine.Span>();
    expectTypeOf<Grammar.Position>().toEqualTypeOf<Engine.Position>();
    expectTypeOf<Grammar.Severity>().toEqualTypeOf<Engine.Severity>();
  });
});
