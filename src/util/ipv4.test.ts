import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatCidr, hostAddress, parseCidr, subnet, tryParseIp } from './ipv4.js';

test('a pod CIDR is sliced into per-node /24s and their hosts, as k3s hands them out', () => {
  const pods = parseCidr('10.42.0.0/16');
  assert.equal(formatCidr(subnet(pods, 24, 0)), '10.42.0.0/24');
  assert.equal(formatCidr(subnet(pods, 24, 3)), '10.42.3.0/24');
  assert.equal(hostAddress(subnet(pods, 24, 3), 2), '10.42.3.2');
  assert.throws(() => subnet(pods, 24, 256), /only 256/);
  assert.equal(formatCidr(parseCidr('10.43.7.9/16')), '10.43.0.0/16');
});

test('bad addresses and ranges are refused with a message naming them', () => {
  assert.throws(() => parseCidr('10.42.0.0'), /not an IPv4 CIDR/);
  assert.throws(() => parseCidr('10.300.0.0/16'), /octet above 255/);
  assert.equal(tryParseIp('10.0.0.256'), undefined);
  assert.equal(tryParseIp('10.0.0.1'), 0x0a000001);
  assert.throws(() => hostAddress(parseCidr('10.0.0.0/30'), 3), /no host number 3/);
});
