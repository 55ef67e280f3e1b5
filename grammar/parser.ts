/**
 * The grammar of the policy language as one chevrotain CstParser. Pure syntax: which words mean
 * what (seams, effects allowed per seam, fields per seam, flags of a regex) is decided later, on the
 * tree this parser builds.
 *
 * The parser keeps a small stack of the blocks and brackets it is inside (`frames`), only so that
 * error messages can say what a missing `}` or `)` would have closed.
 */
import { CstParser, type IToken } from 'chevrotain';
import { makeMessageProvider, type ParseContext } from './errors.js';
import * as T from './tokens.js';

export class PolicyParser extends CstParser {
  readonly context: ParseContext;

  constructor(context: ParseContext) {
    super(T.allTokens, {
      recoveryEnabled: true,
      // positions come from the tokens (see `extentOf`): tracking them per node costs more than it gives
      nodeLocationTracking: 'none',
      maxLookahead: 3,
      errorMessageProvider: makeMessageProvider(context),
    });
    this.context = context;
    this.performSelfAnalysis();
  }

  /** Runs `body` inside a frame; the frame is dropped however the body ends (recovery throws). */
  private framed(kind: 'on' | 'test' | 'list' | 'object' | 'paren', label: () => string, open: IToken, body: () => void): void {
    let depth = -1;
    this.ACTION(() => {
      depth = this.context.frames.length;
      this.context.frames.push({ kind, label: label(), open });
    });
    try {
      body();
    } finally {
      this.ACTION(() => {
        if (depth >= 0) this.context.frames.length = depth;
      });
    }
  }

  // ---------------------------------------------------------------- items

  /** Each finished item is handed to `context.onItem`, so a caller can consume a file item by item. */
  file = this.RULE('file', () => {
    this.MANY(() => {
      const item = this.SUBRULE(this.item);
      this.ACTION(() => this.context.onItem?.(item));
    });
  });

  item = this.RULE('item', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.policyDecl) },
      { ALT: () => this.SUBRULE(this.includeDecl) },
      { ALT: () => this.SUBRULE(this.importDecl) },
      { ALT: () => this.SUBRULE(this.letDecl) },
      { ALT: () => this.SUBRULE(this.onBlock) },
      { ALT: () => this.SUBRULE(this.testBlock) },
    ]);
  });

  policyDecl = this.RULE('policyDecl', () => {
    this.CONSUME(T.Policy, { LABEL: 'keyword' });
    this.CONSUME(T.StringLit, { LABEL: 'name' });
  });

  includeDecl = this.RULE('includeDecl', () => {
    this.CONSUME(T.Include, { LABEL: 'keyword' });
    this.CONSUME(T.StringLit, { LABEL: 'path' });
  });

  importDecl = this.RULE('importDecl', () => {
    this.CONSUME(T.Import, { LABEL: 'keyword' });
    this.CONSUME(T.Name, { LABEL: 'agent' });
    this.CONSUME2(T.Name, { LABEL: 'what' });
    this.CONSUME(T.StringLit, { LABEL: 'path' });
  });

  letDecl = this.RULE('letDecl', () => {
    this.CONSUME(T.Let, { LABEL: 'keyword' });
    this.CONSUME(T.Name, { LABEL: 'name' });
    this.CONSUME(T.Equals);
    this.SUBRULE(this.value);
  });

  onBlock = this.RULE('onBlock', () => {
    this.CONSUME(T.On, { LABEL: 'keyword' });
    const seam = this.CONSUME(T.Name, { LABEL: 'seam' });
    const open = this.CONSUME(T.LCurly);
    this.framed('on', () => (seam.image ? `the \`on ${seam.image}\` block` : 'the `on` block'), open, () => {
      this.MANY(() => this.SUBRULE(this.rule));
      this.CONSUME(T.RCurly);
    });
  });

  testBlock = this.RULE('testBlock', () => {
    this.CONSUME(T.Test, { LABEL: 'keyword' });
    const name = this.CONSUME(T.StringLit, { LABEL: 'name' });
    const open = this.CONSUME(T.LCurly);
    this.framed('test', () => (name.image ? `the \`test ${name.image}\` block` : 'the `test` block'), open, () => {
      this.MANY(() => this.SUBRULE(this.testCase));
      this.CONSUME(T.RCurly);
    });
  });

  // ---------------------------------------------------------------- rules

  rule = this.RULE('rule', () => {
    this.CONSUME(T.EffectWord, { LABEL: 'effect' });
    this.OPTION(() => this.SUBRULE(this.toolList));
    this.MANY(() => {
      this.OR([
        { ALT: () => this.SUBRULE(this.selector) },
        { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'text' }) },
        { ALT: () => this.SUBRULE(this.hookClause) },
        { ALT: () => this.SUBRULE(this.timeoutClause) },
        { ALT: () => this.SUBRULE(this.dialectClause) },
        { ALT: () => this.SUBRULE(this.whenClause) },
        { ALT: () => this.SUBRULE(this.becauseClause) },
        { ALT: () => this.CONSUME(T.NumberLit, { LABEL: 'limit' }) },
      ]);
    });
  });

  toolList = this.RULE('toolList', () => {
    this.CONSUME(T.Name, { LABEL: 'tool' });
    this.MANY(() => {
      this.CONSUME(T.Comma);
      this.CONSUME2(T.Name, { LABEL: 'tool' });
    });
  });

  selector = this.RULE('selector', () => {
    this.CONSUME(T.SelectorWord, { LABEL: 'kind' });
    this.SUBRULE(this.value);
    this.MANY(() => {
      this.CONSUME(T.Comma);
      this.SUBRULE2(this.value);
    });
  });

  hookClause = this.RULE('hookClause', () => {
    this.CONSUME(T.Hook, { LABEL: 'keyword' });
    this.CONSUME(T.StringLit, { LABEL: 'command' });
  });

  timeoutClause = this.RULE('timeoutClause', () => {
    this.CONSUME(T.Timeout, { LABEL: 'keyword' });
    this.CONSUME(T.DurationLit, { LABEL: 'duration' });
  });

  dialectClause = this.RULE('dialectClause', () => {
    this.CONSUME(T.Dialect, { LABEL: 'keyword' });
    this.CONSUME(T.Name, { LABEL: 'dialect' });
  });

  whenClause = this.RULE('whenClause', () => {
    this.CONSUME(T.When, { LABEL: 'keyword' });
    this.SUBRULE(this.orExpr);
  });

  becauseClause = this.RULE('becauseClause', () => {
    this.CONSUME(T.Because, { LABEL: 'keyword' });
    this.OR([
      { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'string' }) },
      { ALT: () => this.CONSUME(T.Name, { LABEL: 'ref' }) },
    ]);
  });

  // ---------------------------------------------------------------- conditions

  orExpr = this.RULE('orExpr', () => {
    this.SUBRULE(this.andExpr);
    this.MANY(() => {
      this.CONSUME(T.Or, { LABEL: 'Or' });
      this.SUBRULE2(this.andExpr);
    });
  });

  andExpr = this.RULE('andExpr', () => {
    this.SUBRULE(this.notExpr);
    this.MANY(() => {
      this.CONSUME(T.And, { LABEL: 'And' });
      this.SUBRULE2(this.notExpr);
    });
  });

  /** `not` repeats in a loop, not by recursion, so a long run of them cannot exhaust the stack. */
  notExpr = this.RULE('notExpr', () => {
    this.MANY(() => this.CONSUME(T.Not, { LABEL: 'Not' }));
    this.SUBRULE(this.primary);
  });

  primary = this.RULE('primary', () => {
    this.OR([
      {
        ALT: () => {
          const open = this.CONSUME(T.LParen);
          this.framed('paren', () => 'the `(`', open, () => {
            this.SUBRULE(this.orExpr);
            this.CONSUME(T.RParen);
          });
        },
      },
      { ALT: () => this.CONSUME(T.True, { LABEL: 'True' }) },
      { ALT: () => this.CONSUME(T.False, { LABEL: 'False' }) },
      { ALT: () => this.SUBRULE(this.ranExpr) },
      { ALT: () => this.SUBRULE(this.comparison) },
    ]);
  });

  ranExpr = this.RULE('ranExpr', () => {
    this.CONSUME(T.Ran, { LABEL: 'keyword' });
    this.SUBRULE(this.toolList);
    this.MANY(() => this.SUBRULE(this.selector));
  });

  comparison = this.RULE('comparison', () => {
    this.CONSUME(T.FieldWord, { LABEL: 'field' });
    this.OR([
      {
        ALT: () => {
          this.CONSUME(T.CompareOp, { LABEL: 'op' });
          this.SUBRULE(this.value);
        },
      },
      { ALT: () => this.CONSUME(T.Exists, { LABEL: 'Exists' }) },
    ]);
  });

  // ---------------------------------------------------------------- values

  value = this.RULE('value', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'string' }) },
      { ALT: () => this.CONSUME(T.RegexLit, { LABEL: 'regex' }) },
      { ALT: () => this.CONSUME(T.NumberLit, { LABEL: 'number' }) },
      { ALT: () => this.CONSUME(T.DurationLit, { LABEL: 'duration' }) },
      { ALT: () => this.CONSUME(T.True, { LABEL: 'True' }) },
      { ALT: () => this.CONSUME(T.False, { LABEL: 'False' }) },
      { ALT: () => this.CONSUME(T.Null, { LABEL: 'Null' }) },
      { ALT: () => this.CONSUME(T.Name, { LABEL: 'ref' }) },
      { ALT: () => this.SUBRULE(this.list) },
      { ALT: () => this.SUBRULE(this.object) },
    ]);
  });

  list = this.RULE('list', () => {
    const open = this.CONSUME(T.LBracket);
    this.framed('list', () => 'the list', open, () => {
      this.OPTION(() => {
        this.SUBRULE(this.value);
        this.MANY(() => {
          this.CONSUME(T.Comma);
          this.SUBRULE2(this.value);
        });
        this.OPTION2(() => this.CONSUME2(T.Comma));
      });
      this.CONSUME(T.RBracket);
    });
  });

  object = this.RULE('object', () => {
    const open = this.CONSUME(T.LCurly);
    this.framed('object', () => 'the object', open, () => {
      this.OPTION(() => {
        this.SUBRULE(this.entry);
        this.MANY(() => {
          this.CONSUME(T.Comma);
          this.SUBRULE2(this.entry);
        });
        this.OPTION2(() => this.CONSUME2(T.Comma));
      });
      this.CONSUME(T.RCurly);
    });
  });

  entry = this.RULE('entry', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.AnyWord, { LABEL: 'key' }) },
      { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'key' }) },
    ]);
    this.CONSUME(T.Colon);
    this.SUBRULE(this.value);
  });

  // ---------------------------------------------------------------- tests

  testCase = this.RULE('testCase', () => {
    this.CONSUME(T.Name, { LABEL: 'seam' });
    this.OPTION(() => this.CONSUME2(T.Name, { LABEL: 'tool' }));
    this.OPTION2(() => {
      this.OR([
        { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'payloadString' }) },
        { ALT: () => this.SUBRULE(this.object, { LABEL: 'payloadObject' }) },
      ]);
    });
    this.OPTION3(() => {
      this.CONSUME(T.With, { LABEL: 'With' });
      this.SUBRULE2(this.object, { LABEL: 'extra' });
    });
    this.CONSUME(T.Arrow);
    this.CONSUME(T.AnyWord, { LABEL: 'expect' });
    this.OPTION4(() => {
      this.CONSUME(T.Because, { LABEL: 'Because' });
      this.OR2([
        { ALT: () => this.CONSUME(T.RegexLit, { LABEL: 'reasonRegex' }) },
        { ALT: () => this.CONSUME2(T.StringLit, { LABEL: 'reasonString' }) },
      ]);
    });
  });
}
