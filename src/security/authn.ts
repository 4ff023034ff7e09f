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

export class Authenticator {
  /** A TLS connection carries one certificate, so its identity is read once per connection. */
  private readonly certUsers = new WeakMap<object, UserInfo | null>();

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
    if (known !== undefined) return known ?? undefined;
    const cert = socket.getPeerCertificate();
    const identity = cert && Object.keys(cert).length > 0 ? identityFromPeerCertificate(cert) : undefined;
    const user = identity
      ? withAuthenticatedGroup({ username: identity.username, groups: identity.groups })
      : undefined;
    this.certUsers.set(socket, user ?? null);
    return user;
  }
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive); undefined otherwise. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
