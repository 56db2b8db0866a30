/**
 * Exception isolation: the runtime calls user code (index functions, event handlers,
 * predicates, map functions, watch sources, reconcilers, leader-election callbacks) and never
 * lets what it throws escape to the process. What is caught is wrapped in a `RecoveredPanic`
 * naming what threw and where, handed to a `PanicHandler` (by default logged), and counted
 * (controller-runtime's `RecoverPanic`, which defaults to on).
 */

/** The kinds of user callback the runtime guards. */
export type CallbackKind =
  | 'reconciler'
  | 'predicate'
  | 'map'
  | 'event-handler'
  | 'indexer'
  | 'watch-source'
  | 'watch-error-handler'
  | 'leader-election'
  | 'runnable'
  | 'event-recorder'
  | 'metrics'
  | 'informer';

/** Where a callback threw. Absent fields do not apply. */
export interface PanicContext {
  /** Name of the controller the callback belongs to. */
  controller?: string;
  /** The informer's resource, `group/version/resource`. */
  resource?: string;
  /** The workqueue key or object key (`namespace/name`) the callback was called for. */
  key?: string;
  /** The index of an index function, the handler method (`onAdd` …) or callback name. */
  name?: string;
}

const describe = (value: unknown): string => {
  if (value instanceof Error) return value.message;
  try {
    return typeof value === 'string' ? value : String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
};

/**
 * An exception caught in user code, wrapped with where it happened. `cause` is what was thrown.
 * The message reads like controller-runtime's: `panic: <message> [recovered]`, followed by the
 * callback and its context.
 */
export class RecoveredPanic extends Error {
  readonly callback: CallbackKind;
  readonly context: Readonly<PanicContext>;

  constructor(callback: CallbackKind, thrown: unknown, context: PanicContext = {}) {
    const where = [
      context.controller !== undefined ? `controller=${JSON.stringify(context.controller)}` : '',
      context.resource !== undefined ? `resource=${JSON.stringify(context.resource)}` : '',
      context.key !== undefined ? `key=${JSON.stringify(context.key)}` : '',
      context.name !== undefined ? `name=${JSON.stringify(context.name)}` : '',
    ].filter(Boolean);
    super(`panic: ${describe(thrown)} [recovered] in ${callback}${where.length ? ` (${where.join(' ')})` : ''}`, { cause: thrown });
    this.name = 'RecoveredPanic';
    this.callback = callback;
    this.context = Object.freeze({ ...context });
  }
}

/** Receives every exception the runtime caught in user code. Must not throw (if it does, the panic is logged instead). */
export type PanicHandler = (panic: RecoveredPanic) => void;

/** The default PanicHandler: one line on stderr with the context, then the thrown value's stack. */
export const logPanic: PanicHandler = (panic) => {
  try {
    const cause = panic.cause;
    console.error(panic.message, cause instanceof Error && cause.stack ? `\n${cause.stack}` : '');
  } catch {
    // Nowhere left to report to.
  }
};

/**
 * Builds a RecoveredPanic and hands it to `handler` (default `logPanic`); a throwing handler
 * is itself caught and the panic logged. Returns the panic. Never throws.
 */
export function reportPanic(handler: PanicHandler | undefined, callback: CallbackKind, thrown: unknown, context: PanicContext = {}): RecoveredPanic {
  const panic = thrown instanceof RecoveredPanic ? thrown : new RecoveredPanic(callback, thrown, context);
  try {
    catchRejection((handler ?? logPanic)(panic), (err) => {
      logPanic(panic);
      logPanic(new RecoveredPanic('runnable', err, { name: 'panic handler' }));
    });
  } catch (err) {
    logPanic(panic);
    logPanic(new RecoveredPanic('runnable', err, { name: 'panic handler' }));
  }
  return panic;
}

const PROGRAMMING_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError];

/**
 * Whether an exception thrown by a reconciler counts as a panic (Go's runtime panics: a bug,
 * not a failure the reconciler reports): a TypeError (JavaScript's nil dereference),
 * RangeError, ReferenceError, SyntaxError, EvalError or URIError, or a thrown value that is not
 * an Error at all. Any other Error (ApiError, TerminalError, a plain Error) is an ordinary
 * reconcile error.
 */
export function isPanic(err: unknown): boolean {
  if (err instanceof RecoveredPanic) return true;
  if (!(err instanceof Error)) return true;
  return PROGRAMMING_ERRORS.some((E) => err instanceof E);
}

/** Whether `value` is a promise or another thenable. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * For a callback declared synchronous that returned a promise anyway (an `async` handler):
 * routes its rejection to `onRejected` instead of letting it become an unhandled rejection.
 * Does nothing for other values.
 */
export function catchRejection(value: unknown, onRejected: (err: unknown) => void): void {
  if (!isThenable(value)) return;
  try {
    value.then(undefined, (err: unknown) => {
      try {
        onRejected(err);
      } catch {
        // onRejected is a reporter; it must not create the rejection it is there to catch.
      }
    });
  } catch {
    // A thenable whose then throws: nothing to wait for.
  }
}
