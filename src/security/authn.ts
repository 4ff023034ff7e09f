// Authentication of an HTTPS request: a client certificate our CA signed (verified by the TLS layer)
// first, then an `Authorization: Bearer` token; no valid credential → 401.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { errors } from '../util/errors.js';
import { identityFromPeerCertificate } from './pki.js';
import { withAuthenticatedGroup, type UserInfo } from './user.js';

export interface TokenAuthenticator {
  authenticate(token: string): Promise<UserInfo | undefined>;
}

/** A certificate's user (undefined: it names none) and when the certificate stops being valid (ms). */
interface CertIdentity {
  user: UserInfo | undefined;
  notAfter: number;
}

/** Certificates whose identity is remembered (a fleet's agents); past it the oldest is read again. */
const FINGERPRINTS_KEPT = 20_000;

export class Authenticator {
  /**
   * A TLS connection carries one certificate, so its identity is read once per connection — and used
   * only until the certificate's notAfter (ms): a connection kept open past it must not stay authenticated.
   */
  private readonly certUsers = new WeakMap<object, CertIdentity>();
  /**
   * The same by the certificate's SHA-256 fingerprint: an agent opens new connections (watches, a
   * request while its watch holds the other) with the certificate it already presented, and reading the
   * identity out of the DER is the costly part. Only ever consulted for a chain the TLS layer verified.
   */
  private readonly byFingerprint = new Map<string, CertIdentity>();

  constructor(private readonly tokens: TokenAuthenticator) {}

  /** The requesting user (always in `system:authenticated`), or throws a 401 ApiError. */
  async authenticate(req: IncomingMessage): Promise<UserInfo> {
    const fromCert = this.certificateUser(req.socket as TLSSocket);
    if (fromCert) return fromCert;
    const token = bearerToken(req.headers.authorization);
    if (token !== undefined) {
      const user = await this.tokens.authenticate(token);
      if (user) return withAuthenticatedGroup(user);
    }
    throw errors.unauthorized();
  }

  private certificateUser(socket: TLSSocket): UserInfo | undefined {
    // `authorized` is set by the TLS layer only for a chain to our CA with the client-auth purpose.
    if (!socket || !socket.encrypted || !socket.authorized) return undefined;
    const known = this.certUsers.get(socket);
    if (known !== undefined) return Date.now() <= known.notAfter ? known.user : undefined;
    const cert = socket.getPeerCertificate();
    const fingerprint = cert?.fingerprint256;
    let entry = fingerprint ? this.byFingerprint.get(fingerprint) : undefined;
    if (!entry) {
      const identity = cert && Object.keys(cert).length > 0 ? identityFromPeerCertificate(cert) : undefined;
      const user = identity
        ? withAuthenticatedGroup({ username: identity.username, groups: identity.groups })
        : undefined;
      // The TLS layer checked validity at the handshake only; an unreadable date counts as expired.
      const notAfter = Date.parse(cert?.valid_to ?? '');
      entry = { user, notAfter: Number.isNaN(notAfter) ? -Infinity : notAfter };
      if (fingerprint) {
        this.byFingerprint.set(fingerprint, entry);
        if (this.byFingerprint.size > FINGERPRINTS_KEPT)
          this.byFingerprint.delete(this.byFingerprint.keys().next().value!);
      }
    }
    this.certUsers.set(socket, entry);
    return Date.now() <= entry.notAfter ? entry.user : undefined;
  }
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive); undefined otherwise. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
