/**
 * Records what would crash a process: `unhandledRejection` and `uncaughtException` events.
 * For tests asserting that user code throwing inside the runtime never reaches the process.
 */
import { flushMicrotasks } from '../clock.js';

/** One process-level failure seen while watching. */
export interface ProcessFailure {
  event: 'unhandledRejection' | 'uncaughtException';
  error: unknown;
}

/** A running watch over the process-level failure events. */
export interface ProcessFailureWatch {
  /** Failures seen so far. */
  readonly failures: readonly ProcessFailure[];
  /** Lets pending rejections surface (a few macrotask turns), stops watching, returns the failures. */
  stop(): Promise<ProcessFailure[]>;
}

/** Starts recording `unhandledRejection` and `uncaughtException` events of this process. */
export function watchProcessFailures(): ProcessFailureWatch {
  const failures: ProcessFailure[] = [];
  const onRejection = (error: unknown): void => void failures.push({ event: 'unhandledRejection', error });
  const onException = (error: unknown): void => void failures.push({ event: 'uncaughtException', error });
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    failures,
    async stop() {
      for (let i = 0; i < 4; i++) await flushMicrotasks();
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
      return [...failures];
    },
  };
}
