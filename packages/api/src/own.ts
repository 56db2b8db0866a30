/**
 * Property access that never reaches an object's prototype: request bodies may carry keys such
 * as `__proto__`, `constructor` or `prototype`, which must be stored as plain data.
 */

/** Does `obj` have `key` as an own property? */
export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The own property `key` of `obj` (undefined when it only exists on the prototype chain). */
export function getOwn<T = unknown>(obj: Record<string, T> | undefined, key: string): T | undefined {
  return obj !== undefined && hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets `obj[key] = value` as an own data property, even for `__proto__`. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
