/**
 * String formats custom resource schemas may declare (the strfmt registry kube-apiserver
 * validates against). Unknown formats accept every value, as Kubernetes does.
 */
import { isIP } from 'node:net';

const checks: Record<string, (v: string) => boolean> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))),
  datetime: (v) => checks['date-time']!(v),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  byte: (v) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v),
  uuid: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v),
  uuid3: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v),
  uuid4: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(v),
  uuid5: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(v),
  email: (v) => /^[^\s@]+@[^\s@]+$/.test(v),
  hostname: (v) => v.length <= 255 && /^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*\.?$/.test(v),
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: (v) => {
    const [ip, bits, ...rest] = v.split('/');
    if (rest.length || bits === undefined || !/^\d+$/.test(bits)) return false;
    const family = isIP(ip ?? '');
    return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
  },
  mac: (v) => /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(v),
  uri: (v) => {
    try {
      new URL(v);
      return true;
    } catch {
      return false;
    }
  },
  duration: (v) => /^([+-]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d|w))+$/.test(v.replace(/\s+/g, '')),
  hexcolor: (v) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(v),
};

/** Does a string value satisfy an OpenAPI format? */
export function checkFormat(format: string, value: string): boolean {
  const check = checks[format];
  return check ? check(value) : true;
}
