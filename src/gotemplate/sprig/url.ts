// sprig's urlParse / urlJoin (url.go): an RFC 3986 split approximating Go's net/url Parse and
// URL.String, with Go's field names (scheme, host, hostname, path, query, opaque, fragment, userinfo).

import type { GoFunc, GoMap } from '../value.js';
import { argMap, argString, kindName } from './cast.js';

function urlParse(v: string): GoMap {
  const m = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s.exec(v)!;
  const scheme = (m[1] ?? '').toLowerCase();
  const authority = m[2] ?? '';
  let userinfo = '';
  let host = authority;
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    userinfo = authority.slice(0, at);
    host = authority.slice(at + 1);
  }
  let hostname = host;
  const bracket = /^\[([^\]]*)\]/.exec(host);
  if (bracket) hostname = bracket[1]!;
  else hostname = host.replace(/:\d*$/, '');
  let path = m[3] ?? '';
  let opaque = '';
  if (scheme !== '' && m[2] === undefined && !path.startsWith('/')) {
    opaque = path;
    path = '';
  }
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw new Error(`unable to parse url: parse ${JSON.stringify(v)}: invalid URL escape`);
  }
  let frag = m[5] ?? '';
  try {
    frag = decodeURIComponent(frag);
  } catch {
    /* kept raw */
  }
  return {
    scheme,
    host,
    hostname,
    path: decoded,
    query: m[4] ?? '',
    opaque,
    fragment: frag,
    userinfo,
  };
}

function getOrEmpty(d: GoMap, key: string): string {
  if (!Object.hasOwn(d, key)) return '';
  const v = d[key];
  if (typeof v !== 'string') {
    throw new Error(`unable to parse ${key} key, must be of type string, but ${kindName(v)} found`);
  }
  return v;
}

function urlJoin(d: GoMap): string {
  const scheme = getOrEmpty(d, 'scheme');
  const host = getOrEmpty(d, 'host');
  const path = getOrEmpty(d, 'path');
  const query = getOrEmpty(d, 'query');
  const opaque = getOrEmpty(d, 'opaque');
  const fragment = getOrEmpty(d, 'fragment');
  const userinfo = getOrEmpty(d, 'userinfo');
  let out = '';
  if (scheme !== '') out += scheme + ':';
  if (opaque !== '') out += opaque;
  else {
    if (scheme !== '' || host !== '' || userinfo !== '') {
      if (host !== '' || path !== '' || userinfo !== '') out += '//';
      if (userinfo !== '') out += userinfo + '@';
      out += host;
    }
    const p = encodeURI(path).replace(/%25([0-9A-Fa-f]{2})/g, '%25$1');
    if (p !== '' && !p.startsWith('/') && host !== '') out += '/';
    out += p;
  }
  if (query !== '') out += '?' + query;
  if (fragment !== '') out += '#' + encodeURI(fragment);
  return out;
}

export function urlFunctions(): Record<string, GoFunc> {
  return {
    urlParse: (...a) => urlParse(argString(a[0])),
    urlJoin: (...a) => {
      const d = argMap(a[0]) ?? {};
      return urlJoin(d);
    },
  };
}
