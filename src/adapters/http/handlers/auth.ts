import type { AuthService, TokenPair } from '../../../app/auth-service.js';
import { InvalidTokenError } from '../../../domain/index.js';
import type { HandlerRegistry } from '../registry.js';

function tokenBody(pair: TokenPair) {
  return {
    accessToken: pair.accessToken,
    refreshToken: pair.refreshToken,
    tokenType: 'Bearer' as const,
    expiresIn: pair.expiresIn,
    refreshExpiresIn: pair.refreshExpiresIn,
    user: pair.user,
  };
}

export function authHandlers(auth: AuthService): Pick<HandlerRegistry, 'login' | 'refreshTokens' | 'logout' | 'logoutAll' | 'getMe'> {
  return {
    async login({ body, clientAddress }) {
      return { status: 200, body: tokenBody(await auth.login(body.email, body.password, clientAddress)) };
    },
    async refreshTokens({ body }) {
      const { pair, replayed } = await auth.refresh(body.refreshToken);
      return { status: 200, body: tokenBody(pair), headers: replayed ? { 'Idempotent-Replayed': 'true' } : {} };
    },
    async logout({ body }) {
      // Always 204: an unusable token is simply nothing to revoke (the use case ignores it).
      await auth.logout(body.refreshToken);
      return { status: 204 };
    },
    async logoutAll({ principal }) {
      if (!principal) throw new InvalidTokenError('no principal');
      await auth.logoutAll(principal.userId);
      return { status: 204 };
    },
    async getMe({ principal }) {
      if (!principal) throw new InvalidTokenError('no principal');
      const user = await auth.me(principal.userId);
      return { status: 200, body: { id: user.id, email: user.email, name: user.name } };
    },
  };
}
