// The server compiles request validators without checking schemas against the JSON Schema
// meta-schema (it costs the first request after a start 75 ms): this is where that check runs.
import { describe, expect, it } from 'vitest';
import { loadBundle, loadContract } from '../../src/adapters/http/contract.js';

const bundle = loadBundle();

/** The bundle with an extra query parameter on getHealth whose schema breaks the meta-schema. */
function bundleWithBadSchema(): Record<string, unknown> {
  const copy = structuredClone(bundle) as { paths: Record<string, Record<string, { parameters?: unknown[] }>> };
  copy.paths['/healthz']!.get!.parameters = [{ name: 'probe', in: 'query', schema: { type: 'string', minLength: -1 } }];
  return copy;
}

describe('request validators', () => {
  it('compiles every operation of the bundle with each schema checked against the meta-schema', async () => {
    const contract = await loadContract(bundle, { verifySchemas: true });
    const compiled = Object.keys((contract.api.validator as unknown as { requestValidators: Record<string, unknown> }).requestValidators);
    expect(compiled.sort()).toEqual(contract.routes.map((route) => route.operationId).sort());
    expect(compiled.length).toBeGreaterThanOrEqual(28);
  });

  it('skips only operations whose own validators would accept any request', async () => {
    const contract = await loadContract(bundle, { verifySchemas: true });
    const noInput = contract.routes.filter((route) => !route.takesInput);
    expect(noInput.map((route) => route.operationId).sort()).toEqual([
      'getHealth',
      'getMe',
      'getReadiness',
      'getSite',
      'getStats',
      'listTags',
      'listWebhooks',
      'logoutAll',
    ]);
    // What the app hands over for such an operation: no path parameters (its path has none), the
    // query left out (it declares none), only the headers it declares (none) and no body (it declares none).
    const handedOver = { path: {}, query: {}, header: {}, cookie: {} };
    for (const route of noInput) {
      for (const validate of contract.api.validator.getRequestValidatorsForOperation(route.operationId) ?? []) {
        expect(validate(structuredClone(handedOver)), `${route.operationId}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      expect(route.path).not.toContain('{');
      expect(route.takesQuery || route.hasBody || route.declaredHeaderNames.length > 0).toBe(false);
      expect(contract.validateRequest(route, { params: {}, query: { limit: 'nope' }, headers: {}, body: undefined }).valid).toBe(true);
    }
  });

  it('refuses a bundle with a schema the meta-schema rejects when asked to verify', async () => {
    await expect(loadContract(bundleWithBadSchema(), { verifySchemas: true })).rejects.toThrow(/schema is invalid.*minLength/);
  });

  it('leaves that check out in the server, where the bundle was verified by lint and by this file', async () => {
    await expect(loadContract(bundleWithBadSchema())).resolves.toBeDefined();
  });
});
