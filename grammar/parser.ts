/**
 * The grammar of the policy language as one chevrotain CstParser. Pure syntax: which words mean
 * what (seams, effects allowed per seam, fields per seam, flags of a regex) is decided later, on the
 * tree this parser builds. The tree's types are generated from this grammar: after a change here,
 * run gen-cst-types.ts (cst-types.test.ts fails until then).
 *
 * The parser keeps a small stack of the blocks and brackets it is inside (`frames`), only so that
 * error messages can say what a missing `}` or `)` would have closed.
 */
import { CstParser, EOF, tokenMatcher, type IOrAlt, type IToken, type OrMethodOpts } from 'chevrotain';
import { equalsMessage, makeMessageProvider, quote, softError, strayMessage, type ParseContext } from './errors.js';
import * as T from './tokens.js';

type StrayKind = 'rules' | 'clauses' | 'cases';

/** The alternatives of an `OR`: a list, or options with the list as `DEF`. */
type Choice = IOrAlt<unknown>[] | OrMethodOpts<unknown>;

/** Keywords that start a clause of a rule. */
const CLAUSE_KEYWORDS = [T.SelectorWord, T.Hook, T.Timeout, T.Dialect, T.Matcher, T.With, T.When, T.Because];

/** A `with` not followed by its object (`next` is what follows instead). */
function withMessage(next: IToken): { message: string; help: string } {
  const found = next.tokenType === EOF ? 'end of file' : tokenMatcher(next, T.StringLit) ? `the string ${quote(next.image)}` : quote(next.image);
  return {
    message: `expected \`{\` after \`with\`, found ${found}`,
    help: 'the options of a hook are an object, e.g. `with {args: ["--strict"]}` or `with {shell: "bash"}`',
  };
}

export class PolicyParser extends CstParser {
  readonly context: ParseContext;

  /**
   * The alternatives of each `OR`, made at its first call and kept (none refers to anything but the
   * parser). Written inline, an `OR` makes its alternatives again at every call, an object and a
   * function each: most of what parsing a large file allocated.
   */
  private readonly choices: { [or: string]: Choice | undefined } = {};

  constructor(context: ParseContext) {
    super(T.allTokens, {
      recoveryEnabled: true,
      // positions come from the tokens (see `extentOf`): tracking them per node costs more than it gives
      nodeLocationTracking: 'none',
      maxLookahead: 2,
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
    this.OR((this.choices.item ??= [
      { ALT: () => this.SUBRULE(this.policyDecl) },
      { ALT: () => this.SUBRULE(this.includeDecl) },
      { ALT: () => this.SUBRULE(this.importDecl) },
      { ALT: () => this.SUBRULE(this.letDecl) },
      { ALT: () => this.SUBRULE(this.onBlock) },
      { ALT: () => this.SUBRULE(this.testBlock) },
      { ALT: () => this.SUBRULE(this.unprotectDecl) },
    ]));
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
    // `import gemini policy "..."`: the kind may be the keyword `policy`.
    this.OR((this.choices.importWhat ??= [
      { ALT: () => this.CONSUME2(T.Name, { LABEL: 'what' }) },
      { ALT: () => this.CONSUME(T.Policy, { LABEL: 'what' }) },
    ]));
    this.CONSUME(T.StringLit, { LABEL: 'path' });
  });

  /** `unprotect claude, codex`: self-protection groups the policy opts out of; a group may be the keyword `policy`. */
  unprotectDecl = this.RULE('unprotectDecl', () => {
    this.CONSUME(T.Unprotect, { LABEL: 'keyword' });
    this.OR((this.choices.unprotectFirst ??= [
      { ALT: () => this.CONSUME(T.Name, { LABEL: 'target' }) },
      { ALT: () => this.CONSUME(T.Policy, { LABEL: 'target' }) },
    ]));
    this.MANY(() => {
      this.CONSUME(T.Comma);
      this.OR2((this.choices.unprotectNext ??= [
        { ALT: () => this.CONSUME2(T.Name, { LABEL: 'target' }) },
        { ALT: () => this.CONSUME2(T.Policy, { LABEL: 'target' }) },
      ]));
    });
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
      this.MANY({
        GATE: () => this.insideBlock(),
        MAX_LOOKAHEAD: 1,
        DEF: () => {
          this.OR((this.choices.blockEntry ??= {
            MAX_LOOKAHEAD: 1,
            DEF: [
              {
                // each finished rule is handed to `context.onRule` before its block ends
                ALT: () => {
                  const rule = this.SUBRULE(this.rule);
                  this.ACTION(() => this.context.onRule?.(rule));
                },
              },
              // any other token: an `OR` takes the first alternative that can start with the next
              // token, so `stray` only gets what no rule starts with (and needs no gate to say so)
              { IGNORE_AMBIGUITIES: true, ALT: () => this.SUBRULE(this.stray, { ARGS: ['rules'] }) },
            ],
          }));
        },
      });
      this.CONSUME(T.RCurly);
    });
  });

  testBlock = this.RULE('testBlock', () => {
    this.CONSUME(T.Test, { LABEL: 'keyword' });
    const name = this.CONSUME(T.StringLit, { LABEL: 'name' });
    const open = this.CONSUME(T.LCurly);
    this.framed('test', () => (name.image ? `the \`test ${name.image}\` block` : 'the `test` block'), open, () => {
      this.MANY({
        GATE: () => this.insideBlock(),
        MAX_LOOKAHEAD: 1,
        DEF: () => {
          this.OR((this.choices.testEntry ??= {
            MAX_LOOKAHEAD: 1,
            DEF: [
              { ALT: () => this.SUBRULE(this.testCase) },
              { IGNORE_AMBIGUITIES: true, ALT: () => this.SUBRULE(this.stray, { ARGS: ['cases'] }) },
            ],
          }));
        },
      });
      this.CONSUME(T.RCurly);
    });
  });

  // ---------------------------------------------------------------- recovery inside blocks

  /** A block goes on until its `}`, the end of the file, or the keyword of the next item. */
  private insideBlock(): boolean {
    const t = this.LA(1).tokenType;
    return t !== T.RCurly && t !== EOF && !this.startsItem(1);
  }

  private insideRule(): boolean {
    return this.insideBlock() && !tokenMatcher(this.LA(1), T.EffectWord);
  }

  /** An item keyword at `LA(k)` that is not an object key (`on: 1`). */
  private startsItem(k: number): boolean {
    return T.itemKeywords.has(this.LA(k).tokenType) && this.LA(k + 1).tokenType !== T.Colon;
  }

  private strayState = { kind: 'rules' as StrayKind, depth: 0, skipNext: false, caseEnds: false, ended: false };

  /**
   * Tokens that start nothing where they stand (a rule in a block, a clause in a rule, a case in a
   * test block): reported once, then skipped as a whole, brackets balanced, up to where the next
   * rule, clause or case can start. In a test block they end after a case's `=> decision [because x]`.
   */
  stray = this.RULE('stray', (kind?: StrayKind) => {
    const first = this.CONSUME(T.AnyToken, { LABEL: 'token' });
    this.ACTION(() => {
      softError(this.context, first, strayMessage(this.context, first, kind ?? 'rules'));
      this.strayState = { kind: kind ?? 'rules', depth: 0, skipNext: false, caseEnds: false, ended: false };
      this.strayStep(first);
    });
    this.MANY({
      GATE: () => this.strayGoesOn(),
      DEF: () => {
        const tok = this.CONSUME2(T.AnyToken, { LABEL: 'token' });
        this.ACTION(() => this.strayStep(tok));
      },
    });
  });

  private strayGoesOn(): boolean {
    const s = this.strayState;
    const t = this.LA(1);
    if (t.tokenType === EOF) return false;
    if (s.skipNext) return true;
    if (this.startsItem(1)) return false;
    if (s.depth > 0) return true;
    // a `}` followed by `=>` or `with` closes the input object of a test case, not the block
    if (t.tokenType === T.RCurly) return this.LA(2).tokenType === T.Arrow || this.LA(2).tokenType === T.With;
    if (s.kind === 'cases') return !s.ended || t.tokenType === T.Because;
    if (tokenMatcher(t, T.EffectWord)) return false;
    return s.kind === 'rules' || !CLAUSE_KEYWORDS.some((k) => tokenMatcher(t, k));
  }

  private strayStep(tok: IToken): void {
    const s = this.strayState;
    const t = tok.tokenType;
    if (s.skipNext) {
      s.skipNext = false;
      if (s.caseEnds) s.ended = true;
      return;
    }
    if (T.openers.has(t)) s.depth++;
    else if (T.closers.has(t)) s.depth = Math.max(0, s.depth - 1);
    else if (s.depth === 0 && (t === T.Arrow || (t === T.Because && s.ended))) {
      // the word after `=>` is a decision, not the start of a rule; so is the value after `because`
      s.skipNext = true;
      s.caseEnds = true;
    }
  }

  // ---------------------------------------------------------------- rules

  /** A rule goes on until the next rule's effect, the block's `}` or the next item. */
  rule = this.RULE('rule', () => {
    this.CONSUME(T.EffectWord, { LABEL: 'effect' });
    this.OPTION(() => this.SUBRULE(this.toolList));
    this.MANY({
      GATE: () => this.insideRule(),
      MAX_LOOKAHEAD: 1,
      DEF: () => {
        this.OR((this.choices.clause ??= {
          MAX_LOOKAHEAD: 1,
          DEF: [
            { ALT: () => this.SUBRULE(this.selector) },
            { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'text' }) },
            { ALT: () => this.SUBRULE(this.hookClause) },
            { ALT: () => this.SUBRULE(this.timeoutClause) },
            { ALT: () => this.SUBRULE(this.dialectClause) },
            { ALT: () => this.SUBRULE(this.matcherClause) },
            { ALT: () => this.SUBRULE(this.withClause) },
            { ALT: () => this.SUBRULE(this.whenClause) },
            { ALT: () => this.SUBRULE(this.becauseClause) },
            { ALT: () => this.CONSUME(T.NumberLit, { LABEL: 'limit' }) },
            // any other token (as in `onBlock`)
            { IGNORE_AMBIGUITIES: true, ALT: () => this.SUBRULE(this.stray, { ARGS: ['clauses'] }) },
          ],
        }));
      },
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

  /** `matcher "<pattern>"` (the agent's own matcher syntax), or `matcher *`: every value. */
  matcherClause = this.RULE('matcherClause', () => {
    this.CONSUME(T.Matcher, { LABEL: 'keyword' });
    this.OR((this.choices.matcher ??= [
      { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'pattern' }) },
      { ALT: () => this.CONSUME(T.Name, { LABEL: 'any' }) },
    ]));
  });

  /** `with { key: value, ... }`: more properties of the hook (`args`, `shell`, `plugin_root`, `if`). */
  withClause = this.RULE('withClause', () => {
    const keyword = this.CONSUME(T.With, { LABEL: 'keyword' });
    let options = false;
    this.OPTION(() => {
      this.SUBRULE(this.object, { LABEL: 'options' });
      options = true;
    });
    // without its object the clause is reported here, and the rule goes on with what follows:
    // the parser's own recovery would insert a `{` and read the next rule as the object's entries
    this.ACTION(() => {
      if (!options) {
        const next = this.LA(1);
        softError(this.context, next.tokenType === EOF ? keyword : next, withMessage(next));
      }
    });
  });

  whenClause = this.RULE('whenClause', () => {
    this.CONSUME(T.When, { LABEL: 'keyword' });
    this.SUBRULE(this.orExpr);
  });

  becauseClause = this.RULE('becauseClause', () => {
    this.CONSUME(T.Because, { LABEL: 'keyword' });
    this.OR((this.choices.because ??= [
      { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'string' }) },
      { ALT: () => this.CONSUME(T.Name, { LABEL: 'ref' }) },
    ]));
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
    this.OR((this.choices.primary ??= [
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
    ]));
  });

  ranExpr = this.RULE('ranExpr', () => {
    this.CONSUME(T.Ran, { LABEL: 'keyword' });
    this.SUBRULE(this.toolList);
    this.MANY(() => this.SUBRULE(this.selector));
  });

  comparison = this.RULE('comparison', () => {
    this.CONSUME(T.FieldWord, { LABEL: 'field' });
    this.OR((this.choices.comparison ??= [
      {
        ALT: () => {
          this.CONSUME(T.CompareOp, { LABEL: 'op' });
          this.SUBRULE(this.value);
        },
      },
      {
        // `=` for `==`: reported, then read as `==` so the rest of the rule parses as meant
        ALT: () => {
          const eq = this.CONSUME(T.Equals, { LABEL: 'op' });
          this.ACTION(() => softError(this.context, eq, equalsMessage(this.context, eq)));
          this.SUBRULE2(this.value);
        },
      },
      { ALT: () => this.CONSUME(T.Exists, { LABEL: 'Exists' }) },
    ]));
  });

  // ---------------------------------------------------------------- values

  value = this.RULE('value', () => {
    this.OR((this.choices.value ??= [
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
    ]));
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
    this.OR((this.choices.entryKey ??= [
      { ALT: () => this.CONSUME(T.AnyWord, { LABEL: 'key' }) },
      { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'key' }) },
    ]));
    this.CONSUME(T.Colon);
    this.SUBRULE(this.value);
  });

  // ---------------------------------------------------------------- tests

  testCase = this.RULE('testCase', () => {
    this.CONSUME(T.Name, { LABEL: 'seam' });
    this.OPTION(() => this.CONSUME2(T.Name, { LABEL: 'tool' }));
    this.OPTION2(() => {
      this.OR((this.choices.payload ??= [
        { ALT: () => this.CONSUME(T.StringLit, { LABEL: 'payloadString' }) },
        { ALT: () => this.SUBRULE(this.object, { LABEL: 'payloadObject' }) },
      ]));
    });
    this.OPTION3(() => {
      this.CONSUME(T.With, { LABEL: 'With' });
      this.SUBRULE2(this.object, { LABEL: 'extra' });
    });
    this.CONSUME(T.Arrow);
    this.CONSUME(T.AnyWord, { LABEL: 'expect' });
    this.OPTION4(() => {
      this.CONSUME(T.Because, { LABEL: 'Because' });
      this.OR2((this.choices.reason ??= [
        { ALT: () => this.CONSUME(T.RegexLit, { LABEL: 'reasonRegex' }) },
        { ALT: () => this.CONSUME2(T.StringLit, { LABEL: 'reasonString' }) },
      ]));
    });
  });
}
