import variant from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';

/**
 * The script sandbox: QuickJS compiled to WebAssembly (quickjs-emscripten). One WASM module per process, one runtime
 * and context per script, reused across calls. The context has the language only: no `process`, `require`, `fetch`,
 * timers or any other host function. Values cross the boundary as JSON text in and out (nothing of the host's objects
 * is ever handed in), so whatever a script does to its own prototypes stays in its own context. Each call runs under
 * a fresh deadline (interrupt handler), within the runtime's memory and stack limits; a runtime that ran out of memory
 * or was interrupted mid-way is thrown away and rebuilt from the source on the next call.
 */

export interface SandboxLimits {
  /** Wall-clock time of one call (and of evaluating the source). */
  timeMs: number;
  memoryBytes: number;
  stackBytes: number;
  /** `log()` lines kept per call, and characters per line. */
  logLines: number;
  logLineChars: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeMs: 50,
  memoryBytes: 8 * 1024 * 1024,
  stackBytes: 256 * 1024,
  logLines: 50,
  logLineChars: 500,
};

/** The file name errors and stacks give the script; its line numbers are the source's own. */
export const SCRIPT_FILE = 'script.js';

export type ScriptErrorKind = 'syntax' | 'runtime' | 'timeout' | 'memory' | 'output';

/** Why a script failed: kind, message and the line of the source it points at (null when none is known). */
export class ScriptError extends Error {
  constructor(
    readonly kind: ScriptErrorKind,
    message: string,
    readonly line: number | null = null,
  ) {
    super(message);
    this.name = 'ScriptError';
  }

  /** The contract's error code of the kind (packages/contract/src/errors.ts). */
  get code(): 82001 | 82002 | 82003 | 82005 {
    if (this.kind === 'timeout') return 82002;
    if (this.kind === 'memory') return 82003;
    if (this.kind === 'syntax') return 82005;
    return 82001;
  }
}

let modulePromise: Promise<QuickJSWASMModule> | undefined;

/** The WASM module, loaded once per process. */
export function quickjsModule(): Promise<QuickJSWASMModule> {
  modulePromise ??= newQuickJSWASMModuleFromVariant(variant);
  return modulePromise;
}

// Evaluated before the script, in its own file: it keeps JSON and the log buffer out of the script's reach (a script
// redefining JSON or Array.prototype.push only breaks its own output, which the host checks anyway).
const PRELUDE = `(function () {
  var parse = JSON.parse, stringify = JSON.stringify, G = globalThis;
  var lines = [], maxLines = %LINES%, maxChars = %CHARS%, dropped = 0;
  function show(v) {
    if (typeof v === 'string') return v;
    try { var s = stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); }
  }
  function log() {
    if (lines.length >= maxLines) { dropped++; return; }
    var parts = [];
    for (var i = 0; i < arguments.length; i++) parts[i] = show(arguments[i]);
    var line = parts.join(' ');
    lines[lines.length] = line.length > maxChars ? line.slice(0, maxChars) + '…' : line;
  }
  G.log = log;
  G.console = { log: log, info: log, warn: log, error: log, debug: log };
  function run(name, input) {
    lines = []; dropped = 0;
    var fn = G[name];
    if (typeof fn !== 'function') {
      // let/const declarations at the top are not properties of globalThis.
      try { fn = (0, eval)('typeof ' + name + " === 'function' ? " + name + ' : undefined'); } catch (e) { fn = undefined; }
    }
    if (typeof fn !== 'function') throw new TypeError('the script defines no function ' + name + '()');
    var args = parse(input);
    var out = fn(args[0], args[1]);
    if (dropped > 0) lines[lines.length] = '… ' + dropped + ' more line(s) dropped';
    var text = stringify(out === undefined ? null : out);
    // The log lines' JSON, a newline, the result's JSON: one stringify of the result and none of it twice (the
    // JSON of the lines never holds a raw newline).
    return stringify(lines) + '\\n' + (text === undefined ? 'null' : text);
  }
  function logsOfFailure() {
    if (dropped > 0) lines[lines.length] = '… ' + dropped + ' more line(s) dropped';
    return stringify(lines);
  }
  return [run, logsOfFailure];
})()`;

const PRELUDE_FILE = 'sandbox-prelude.js';
const BUILD_MS = 2000;
/** Per-call result size the host reads back (JSON characters). */
const OUTPUT_CHARS_MAX = 256 * 1024;

export interface CallResult {
  /** The function's return value after a JSON round trip (null for undefined). */
  value: unknown;
  logs: string[];
  /** Time spent in the call, milliseconds. */
  ms: number;
}

/** A failed call: the error and the log lines written before it. */
export class ScriptCallError extends ScriptError {
  constructor(
    err: ScriptError,
    readonly logs: string[],
    readonly ms: number,
  ) {
    super(err.kind, err.message, err.line);
  }
}

interface Vm {
  rt: QuickJSRuntime;
  ctx: QuickJSContext;
  run: QuickJSHandle;
  failureLogs: QuickJSHandle;
}

const LINE = new RegExp(`${SCRIPT_FILE.replace('.', '\\.')}:(\\d+)`);

/** Reads an exception handle into a ScriptError (and disposes it). */
function errorOf(ctx: QuickJSContext, handle: QuickJSHandle, phase: 'compile' | 'call'): ScriptError {
  let dumped: unknown;
  try {
    dumped = ctx.dump(handle);
  } catch {
    dumped = undefined;
  } finally {
    handle.dispose();
  }
  const e = (dumped && typeof dumped === 'object' ? dumped : { message: String(dumped) }) as {
    name?: unknown;
    message?: unknown;
    stack?: unknown;
    lineNumber?: unknown;
  };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = typeof e.message === 'string' ? e.message : String(e.message ?? dumped);
  const stack = typeof e.stack === 'string' ? e.stack : '';
  const m = LINE.exec(stack);
  let line = m ? Number(m[1]) : typeof e.lineNumber === 'number' ? e.lineNumber : null;
  if (line !== null && !Number.isFinite(line)) line = null;
  if (name === 'InternalError' && /interrupted/.test(message))
    return new ScriptError('timeout', 'the script ran out of time', line);
  if (/out of memory/i.test(message) || (name === 'InternalError' && /stack overflow/.test(message)))
    return new ScriptError('memory', `the script ran out of memory (${message})`, line);
  const kind = phase === 'compile' && name === 'SyntaxError' ? 'syntax' : 'runtime';
  return new ScriptError(kind, `${name}: ${message}`.slice(0, 1000), line);
}

/**
 * One script's sandbox. `call` runs `decode` or `encode` with JSON-able arguments; not re-entrant (the sandbox is
 * synchronous, so calls from one event loop never overlap). `dispose` frees the runtime.
 */
export class ScriptSandbox {
  private vm: Vm | undefined;
  private disposed = false;
  /** Deadline of what runs now (Date.now() ms): one interrupt handler per runtime reads it, set anew per call. */
  private deadline = 0;
  private readonly interrupt = () => Date.now() > this.deadline;
  /** Runtimes built so far (1 unless one was rebuilt). */
  builds = 0;

  private constructor(
    private readonly module: QuickJSWASMModule,
    readonly source: string,
    readonly limits: SandboxLimits,
  ) {}

  /** Builds the sandbox and evaluates the source; throws a ScriptError when it does not compile or run. */
  static async create(source: string, limits: Partial<SandboxLimits> = {}): Promise<ScriptSandbox> {
    const box = new ScriptSandbox(await quickjsModule(), source, { ...DEFAULT_SANDBOX_LIMITS, ...limits });
    box.build();
    return box;
  }

  private build(): Vm {
    const { limits } = this;
    const rt = this.module.newRuntime();
    rt.setMemoryLimit(limits.memoryBytes);
    rt.setMaxStackSize(limits.stackBytes);
    const ctx = rt.newContext();
    try {
      const prelude = PRELUDE.replace('%LINES%', String(limits.logLines)).replace(
        '%CHARS%',
        String(limits.logLineChars),
      );
      // The prelude is ours and short; the first evaluation in a process can take a while (the WASM warms up).
      this.deadline = Date.now() + BUILD_MS;
      rt.setInterruptHandler(this.interrupt);
      const p = ctx.evalCode(prelude, PRELUDE_FILE, { type: 'global', strict: true });
      if (p.error) throw errorOf(ctx, p.error, 'compile');
      const run = ctx.getProp(p.value, 0);
      const failureLogs = ctx.getProp(p.value, 1);
      p.value.dispose();
      // The script's top level (its function definitions, tables it builds) gets what a call gets, at least 100 ms.
      this.deadline = Date.now() + Math.max(limits.timeMs, 100);
      const r = ctx.evalCode(this.source, SCRIPT_FILE, { type: 'global' });
      if (r.error) {
        run.dispose();
        failureLogs.dispose();
        throw errorOf(ctx, r.error, 'compile');
      }
      r.value.dispose();
      this.builds++;
      this.vm = { rt, ctx, run, failureLogs };
      return this.vm;
    } catch (err) {
      ctx.dispose();
      rt.dispose();
      throw err;
    }
  }

  private drop(): void {
    const vm = this.vm;
    this.vm = undefined;
    if (!vm) return;
    try {
      vm.run.dispose();
      vm.failureLogs.dispose();
      vm.ctx.dispose();
      vm.rt.dispose();
    } catch {
      // A runtime that broke down may refuse to free cleanly; it is gone either way.
    }
  }

  /** Calls `name(args[0], args[1])` in the sandbox; throws ScriptCallError. */
  call(name: 'decode' | 'encode', args: [unknown, unknown]): CallResult {
    if (this.disposed) throw new ScriptCallError(new ScriptError('runtime', 'sandbox disposed'), [], 0);
    const started = performance.now();
    let vm: Vm;
    try {
      vm = this.vm ?? this.build();
    } catch (err) {
      const e = err instanceof ScriptError ? err : new ScriptError('runtime', String(err));
      throw new ScriptCallError(e, [], performance.now() - started);
    }
    const { ctx, run } = vm;
    this.deadline = Date.now() + this.limits.timeMs;
    const fnName = ctx.newString(name);
    const input = ctx.newString(JSON.stringify(args));
    let result;
    try {
      result = ctx.callFunction(run, ctx.undefined, fnName, input);
    } finally {
      fnName.dispose();
      input.dispose();
    }
    if (result.error) {
      const e = errorOf(ctx, result.error, 'call');
      const ms = performance.now() - started;
      // A timed-out or exhausted runtime is rebuilt (its log lines go with it); otherwise the lines are read back.
      if (e.kind === 'timeout' || e.kind === 'memory') {
        this.drop();
        throw new ScriptCallError(e, [], ms);
      }
      throw new ScriptCallError(e, this.logsAfterFailure(vm), ms);
    }
    const text = ctx.typeof(result.value) === 'string' ? ctx.getString(result.value) : '';
    result.value.dispose();
    const ms = performance.now() - started;
    if (text.length > OUTPUT_CHARS_MAX)
      throw new ScriptCallError(new ScriptError('output', 'the result is too large'), [], ms);
    const cut = text.indexOf('\n');
    const logsText = cut < 0 ? '[]' : text.slice(0, cut);
    // No log lines (the usual case) needs no parse.
    const lines = logsText === '[]' ? [] : (JSON.parse(logsText) as unknown);
    const logs = Array.isArray(lines) ? lines.map(String) : [];
    return { value: JSON.parse(text.slice(cut + 1)) as unknown, logs, ms };
  }

  private logsAfterFailure(vm: Vm): string[] {
    const { ctx } = vm;
    this.deadline = Date.now() + this.limits.timeMs;
    const r = ctx.callFunction(vm.failureLogs, ctx.undefined);
    if (r.error) {
      r.error.dispose();
      return [];
    }
    const text = ctx.typeof(r.value) === 'string' ? ctx.getString(r.value) : '[]';
    r.value.dispose();
    try {
      const lines = JSON.parse(text) as unknown;
      return Array.isArray(lines) ? lines.map(String) : [];
    } catch {
      return [];
    }
  }

  dispose(): void {
    this.disposed = true;
    this.drop();
  }
}
