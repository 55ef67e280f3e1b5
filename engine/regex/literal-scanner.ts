/**
 * Aho–Corasick search for many literal strings at once, in one pass over the text.
 *
 * Texts and literals are compared as UTF-16 code units, so any string works (unpaired surrogates
 * included). The automaton is built once: a table indexed by state and character class, where the
 * classes are the distinct code units of the literals plus one class for every other unit; a scan
 * costs one table step per code unit. When that table would be too large (very many states times
 * very many distinct characters), a trie with failure links is walked instead, still in linear time.
 */

export interface LiteralScannerOptions {
  /** ASCII letters compare without case (other characters compare exactly). */
  readonly asciiCaseInsensitive?: boolean;
}

/** Above this many table cells, the scanner walks failure links instead. */
const MAX_TABLE = 1 << 22;

export class LiteralScanner {
  readonly literals: readonly string[];
  private readonly fold: boolean;
  /** Class of each ASCII code unit (0: in no literal). */
  private readonly asciiClass = new Uint16Array(128);
  /** Class of each non-ASCII code unit in a literal; null when there is none. */
  private readonly otherClass: Map<number, number> | null;
  private readonly classCount: number;
  private readonly stateCount: number;
  /** Dense transitions: `next[row + class]` is the next row (rank × classCount); null in the sparse mode. */
  private readonly next: Uint32Array | null;
  /** State of each rank, for the dense table. */
  private readonly stateAtRow: Uint32Array | null;
  /** Rows from here on belong to states with an output. */
  private readonly firstOutputRow: number;
  /** Sparse mode: trie edges per state and failure links. */
  private readonly edges: Map<number, number>[] | null;
  private readonly failure: Uint32Array;
  /** Literal indices ending at each state (not counting its suffix states). */
  private readonly output: (number[] | undefined)[];
  /** Nearest proper suffix state with an output, or -1. */
  private readonly dictionary: Int32Array;
  /** 1 when the state or one of its suffix states has an output. */
  private readonly hasOutput: Uint8Array;
  /** Indices of empty literals, which occur in every text. */
  private readonly empty: number[] = [];
  /** Number of states with an output. */
  private readonly outputStates: number;
  /** The only non-empty literal when there is exactly one and no case folding, for `indexOf`. */
  private readonly single: string | null;
  private readonly seen: Uint32Array;
  private epoch = 0;

  constructor(literals: readonly string[], options: LiteralScannerOptions = {}) {
    this.literals = [...literals];
    this.fold = options.asciiCaseInsensitive === true;
    const lower = (c: number): number => (this.fold && c >= 0x41 && c <= 0x5a ? c | 0x20 : c);

    // Character classes.
    const other = new Map<number, number>();
    let classes = 1;
    for (const literal of this.literals) {
      for (let i = 0; i < literal.length; i++) {
        const c = lower(literal.charCodeAt(i));
        if (c < 128) {
          if (this.asciiClass[c] === 0) this.asciiClass[c] = classes++;
        } else if (!other.has(c)) {
          other.set(c, classes++);
        }
      }
    }
    if (this.fold) for (let c = 0x41; c <= 0x5a; c++) this.asciiClass[c] = this.asciiClass[c | 0x20]!;
    this.otherClass = other.size > 0 ? other : null;
    this.classCount = classes;

    // Trie.
    const edges: Map<number, number>[] = [new Map()];
    const output: (number[] | undefined)[] = [undefined];
    this.literals.forEach((literal, index) => {
      if (literal.length === 0) {
        this.empty.push(index);
        return;
      }
      let state = 0;
      for (let i = 0; i < literal.length; i++) {
        const k = this.classOf(lower(literal.charCodeAt(i)));
        let to = edges[state]!.get(k);
        if (to === undefined) {
          to = edges.length;
          edges.push(new Map());
          output.push(undefined);
          edges[state]!.set(k, to);
        }
        state = to;
      }
      (output[state] ??= []).push(index);
    });
    const n = edges.length;
    this.stateCount = n;
    this.output = output;

    // Failure and dictionary links, breadth first.
    const failure = new Uint32Array(n);
    const dictionary = new Int32Array(n).fill(-1);
    const hasOutput = new Uint8Array(n);
    const order: number[] = [0];
    for (let q = 0; q < order.length; q++) {
      const state = order[q]!;
      for (const [k, to] of edges[state]!) {
        let f = failure[state]!;
        if (state === 0) {
          f = 0;
        } else {
          while (f !== 0 && !edges[f]!.has(k)) f = failure[f]!;
          f = edges[f]!.get(k) ?? 0;
        }
        failure[to] = f;
        dictionary[to] = output[f] !== undefined ? f : dictionary[f]!;
        hasOutput[to] = output[to] !== undefined || dictionary[to] !== -1 ? 1 : 0;
        order.push(to);
      }
    }
    this.failure = failure;
    this.dictionary = dictionary;
    this.hasOutput = hasOutput;
    this.outputStates = output.filter((o) => o !== undefined).length;
    this.seen = new Uint32Array(n);

    // Dense transitions, when they fit. Rows are renumbered so that the states with an output come
    // last: the scan loop tests one comparison, and the table holds row offsets, not state numbers.
    if (n * classes <= MAX_TABLE) {
      const rank = new Uint32Array(n);
      const stateAt = new Uint32Array(n);
      let r = 0;
      for (let pass = 0; pass < 2; pass++) {
        for (let state = 0; state < n; state++) {
          if (hasOutput[state] === pass) {
            rank[state] = r;
            stateAt[r++] = state;
          }
        }
      }
      const full = new Uint32Array(n * classes);
      for (const state of order) {
        const row = state * classes;
        const fallback = failure[state]! * classes;
        for (let k = 0; k < classes; k++) {
          const to = edges[state]!.get(k);
          full[row + k] = to !== undefined ? to : state === 0 ? 0 : full[fallback + k]!;
        }
      }
      const next = new Uint32Array(n * classes);
      for (let state = 0; state < n; state++) {
        const row = rank[state]! * classes;
        for (let k = 0; k < classes; k++) next[row + k] = rank[full[state * classes + k]!]! * classes;
      }
      this.next = next;
      this.stateAtRow = stateAt;
      this.firstOutputRow = (n - this.countOutputStates(hasOutput)) * classes;
      this.edges = null;
    } else {
      this.next = null;
      this.stateAtRow = null;
      this.firstOutputRow = 0;
      this.edges = edges;
    }

    const nonEmpty = this.literals.filter((l) => l.length > 0);
    this.single = !this.fold && nonEmpty.length === 1 ? nonEmpty[0]! : null;
  }

  private countOutputStates(hasOutput: Uint8Array): number {
    let count = 0;
    for (const flag of hasOutput) count += flag;
    return count;
  }

  private classOf(c: number): number {
    if (c < 128) return this.asciiClass[c]!;
    return this.otherClass === null ? 0 : (this.otherClass.get(c) ?? 0);
  }

  /**
   * Calls `onFound` with the index of every literal occurring in `text`, each index at most once
   * per scan (duplicate literals are reported under each of their indices), in no particular order.
   * Returning `true` from `onFound` ends the scan. A scan started from inside `onFound` on the same
   * scanner may make the outer scan report an index a second time.
   */
  scan(text: string, onFound: (literalIndex: number) => boolean | void): void {
    for (const index of this.empty) if (onFound(index) === true) return;
    if (this.outputStates === 0) return;
    if (++this.epoch === 0xffffffff) {
      this.seen.fill(0);
      this.epoch = 1;
    }
    const epoch = this.epoch;
    let remaining = this.outputStates;
    const report = (state: number): boolean => {
      for (let s = this.output[state] !== undefined ? state : this.dictionary[state]!; s !== -1; s = this.dictionary[s]!) {
        if (this.seen[s] === epoch) break; // this state and its suffixes were reported already
        this.seen[s] = epoch;
        remaining--;
        for (const index of this.output[s]!) if (onFound(index) === true) return true;
      }
      return remaining === 0;
    };
    this.run(text, report);
  }

  /** Whether any literal occurs in `text`. */
  has(text: string): boolean {
    if (this.empty.length > 0) return true;
    if (this.single !== null) return text.includes(this.single);
    if (this.outputStates === 0) return false;
    return this.run(text, () => true);
  }

  /** Indices of the literals occurring in `text`, ascending. */
  findAll(text: string): number[] {
    const found: number[] = [];
    this.scan(text, (index) => {
      found.push(index);
    });
    return found.sort((a, b) => a - b);
  }

  /** Runs the automaton; `onState` is called at states with an output and returns true to stop. */
  private run(text: string, onState: (state: number) => boolean): boolean {
    const ascii = this.asciiClass;
    const other = this.otherClass;
    const length = text.length;
    const next = this.next;
    if (next !== null) {
      const classes = this.classCount;
      const firstOutputRow = this.firstOutputRow;
      const stateAtRow = this.stateAtRow!;
      let row = 0;
      for (let i = 0; i < length; i++) {
        const c = text.charCodeAt(i);
        row = next[row + (c < 128 ? ascii[c]! : other === null ? 0 : (other.get(c) ?? 0))]!;
        if (row >= firstOutputRow && onState(stateAtRow[row / classes]!)) return true;
      }
      return false;
    }
    const edges = this.edges!;
    const failure = this.failure;
    const hasOutput = this.hasOutput;
    let state = 0;
    for (let i = 0; i < length; i++) {
      const c = text.charCodeAt(i);
      const k = c < 128 ? ascii[c]! : other === null ? 0 : (other.get(c) ?? 0);
      let to = edges[state]!.get(k);
      while (to === undefined && state !== 0) {
        state = failure[state]!;
        to = edges[state]!.get(k);
      }
      state = to ?? 0;
      if (hasOutput[state] === 1 && onState(state)) return true;
    }
    return false;
  }

  /** Number of automaton states. */
  get size(): number {
    return this.stateCount;
  }

  /** Whether the scanner uses the dense transition table (else it walks failure links). */
  get dense(): boolean {
    return this.next !== null;
  }
}
