/** Child-process entry: the allow-all admission webhook of the admission case (see webhook-server.ts). */
import { serveInChild } from './child.js';
import { startAllowAllWebhook } from './webhook-server.js';

await serveInChild<{ url: string; caBundle: string }>(async () => {
  const webhook = await startAllowAllWebhook();
  return { info: { url: webhook.url, caBundle: webhook.caBundle }, stop: () => webhook.close() };
});
