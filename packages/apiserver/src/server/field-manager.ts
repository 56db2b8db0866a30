/**
 * The fieldManager of a write and the apply patch type, as kube-apiserver reads them: the
 * `fieldManager` query parameter, else the first `/`-separated segment of the User-Agent
 * (`kubectl-client-side-apply/v1.32.0 (linux/amd64) ...` gives `kubectl-client-side-apply`),
 * printable characters only, at most 128.
 */
import type { RawRequest, StatusCause } from '@kplane/api';
import { fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong, invalid } from '@kplane/api';

/** The server-side apply patch type (kube-apiserver 1.32 accepts YAML, of which JSON is a subset). */
export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/** The patch types every resource accepts (custom resources lack strategic merge patch). */
export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', APPLY_PATCH_TYPE];

/** Is this request body an apply patch? */
export function isApplyPatch(req: RawRequest): boolean {
  return (req.headers?.['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === APPLY_PATCH_TYPE;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$/u;

function printable(s: string): string {
  let out = '';
  for (const ch of s) {
    if (!PRINTABLE.test(ch)) continue;
    if (Buffer.byteLength(out) >= 128) break;
    out += ch;
  }
  return out;
}

/**
 * The manager of a create, update or patch (`options` names the Go options kind in errors:
 * CreateOptions, UpdateOptions, PatchOptions). Apply needs an explicit fieldManager; `force`
 * belongs to apply alone. Invalid options are 422, as kube-apiserver answers them.
 */
export function fieldManager(req: RawRequest, options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', apply = false): string {
  const q = req.query ?? {};
  const given = q.fieldManager ?? '';
  const causes: StatusCause[] = [];
  if (options === 'PatchOptions') {
    if (!apply && q.force !== undefined) causes.push(fieldForbidden('force', 'may not be specified for non-apply patch'));
    if (apply && given === '') causes.push(fieldRequired('fieldManager', 'is required for apply patch'));
  }
  if (Buffer.byteLength(given) > 128) causes.push(fieldTooLong('fieldManager', 128));
  let at = 0;
  for (const ch of given) {
    if (!PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!;
      causes.push(fieldInvalid('fieldManager', given, `invalid character U+${code.toString(16).toUpperCase().padStart(4, '0')} (at position ${at})`));
    }
    at += Buffer.byteLength(ch);
  }
  if (causes.length) throw invalid('meta.k8s.io', options, '', causes);
  if (given) return given;
  return printable((req.headers?.['user-agent'] ?? '').split('/')[0]!);
}
