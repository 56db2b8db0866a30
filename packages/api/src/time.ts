/** The last whole second formatted by rfc3339, and its text: writes and status updates come many to a second. */
let lastSecond = NaN;
let lastText = '';

/**
 * metav1.Time as Kubernetes serialises it: RFC 3339 in UTC with whole seconds
 * ("2006-01-02T15:04:05Z"), of a Date or of milliseconds since the epoch. An invalid time
 * throws a RangeError, as Date.prototype.toISOString does.
 */
export function rfc3339(time: number | Date): string {
  const ms = typeof time === 'number' ? time : time.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = `${new Date(second * 1000).toISOString().slice(0, -5)}Z`;
    lastSecond = second;
  }
  return lastText;
}
