/**
 * protobufjs, loaded at first use (the first protobuf body or answer): a process that speaks
 * only JSON, as in-process clients do, does not pay its import. The same module object as an
 * `import protobuf from 'protobufjs'` (a CommonJS package).
 */
import { createRequire } from 'node:module';
import type Protobuf from 'protobufjs';

let lib: typeof Protobuf | undefined;

/** The protobufjs module. */
export function protobufjs(): typeof Protobuf {
  return (lib ??= createRequire(import.meta.url)('protobufjs') as typeof Protobuf);
}
