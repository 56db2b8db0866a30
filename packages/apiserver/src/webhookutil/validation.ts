/** Validation of a webhook's service reference, as kube's ValidateWebhookService. */
import type { StatusCause } from '@kplane/api';
import { fieldInvalid, fieldRequired, isDNS1123Subdomain } from '@kplane/api';

/** A service reference as configurations hold it. */
export interface ServiceReference {
  namespace?: string;
  name?: string;
  path?: string;
  port?: number;
}

/**
 * The errors of a service reference at `path`: name and namespace required, port 1–65535
 * (443 when absent), and a path of DNS-1123-subdomain segments starting with '/'.
 */
export function validateWebhookService(path: string, svc: ServiceReference): StatusCause[] {
  const out: StatusCause[] = [];
  if (!svc.name) out.push(fieldRequired(`${path}.name`, 'service name is required'));
  if (!svc.namespace) out.push(fieldRequired(`${path}.namespace`, 'service namespace is required'));
  const port = svc.port ?? 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) out.push(fieldInvalid(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const urlPath = svc.path;
  if (urlPath === undefined || urlPath === '' || urlPath === '/') return out;
  if (urlPath === '//') return [...out, fieldInvalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) out.push(fieldInvalid(`${path}.path`, urlPath, "must start with a '/'"));
  let rest = urlPath.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') {
      out.push(fieldInvalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const m of isDNS1123Subdomain(step)) out.push(fieldInvalid(`${path}.path`, urlPath, `segment[${i}]: ${m}`));
  });
  return out;
}
