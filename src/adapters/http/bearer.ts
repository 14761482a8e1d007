import { InvalidTokenError } from '../../domain/index.js';

/** `Authorization: Bearer <token>`, the token in RFC 6750's b64token syntax. */
const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i;

/**
 * The token of an `Authorization: Bearer` header.
 * @throws InvalidTokenError('missing') when the header is absent or not a bearer token (a 401 with `WWW-Authenticate`)
 */
export function bearerToken(authorization: string | null | undefined): string {
  const token = BEARER.exec(authorization ?? '')?.[1];
  if (token === undefined) throw new InvalidTokenError('missing');
  return token;
}
