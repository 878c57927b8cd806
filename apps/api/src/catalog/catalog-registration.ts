import { CatalogEntryRepository } from '@app/database';
import { instantiate, InputValue, ServerJson } from '@app/catalog';
import { CONNECTION_FIELDS, FieldError, ForbiddenError, InvalidInputError, Principal } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { CreateServerDto } from '../servers/server.dto';
import { createValidationPipe } from '../http/validation.pipe';
import { catalogScopeOf } from './catalog.service';

/** Metadata labels a server made from the catalog carries: which entry and version it came from. */
export const CATALOG_NAME_LABEL = 'catalog.name';
export const CATALOG_VERSION_LABEL = 'catalog.version';

/** The parts of the connection a catalog entry decides; headers and auth stay the caller's to give. */
const FROM_ENTRY = CONNECTION_FIELDS.filter((f) => f !== 'headers' && f !== 'auth');
const MAX_INPUTS = 64;
const MAX_INPUT_LENGTH = 8192;

function checkInputs(raw: Record<string, unknown> | undefined): Record<string, InputValue> {
  const inputs = raw ?? {};
  const errors: FieldError[] = [];
  const names = Object.keys(inputs);
  if (names.length > MAX_INPUTS) errors.push({ field: 'fromCatalog.inputs', message: `has more than ${MAX_INPUTS} inputs` });
  const ok = (v: unknown) => typeof v === 'string' && v.length <= MAX_INPUT_LENGTH && !/[\r\n\0]/.test(v);
  for (const name of names) {
    const v = inputs[name];
    if (!(ok(v) || (Array.isArray(v) && v.length <= 100 && v.every(ok)))) {
      errors.push({ field: `fromCatalog.inputs.${name}`, message: `must be a single-line string (at most ${MAX_INPUT_LENGTH} characters) or a list of them` });
    }
  }
  if (errors.length) throw new InvalidInputError(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  return inputs as Record<string, InputValue>;
}

/**
 * `fromCatalog` of POST /api/v1/servers: the ordinary registration a catalog entry's remote or package makes,
 * checked as any registration is, then handed to the usual path (ownership rules, outbound policy, quota).
 */
@Injectable()
export class CatalogRegistrationService {
  private readonly pipe = createValidationPipe();

  constructor(private readonly entries: CatalogEntryRepository) {}

  async toRegistration(principal: Principal, dto: CreateServerDto): Promise<CreateServerDto> {
    const from = dto.fromCatalog!;
    const given = FROM_ENTRY.filter((f) => dto[f] !== undefined);
    if (given.length) {
      const message = 'comes from the catalog entry with fromCatalog; give its inputs instead';
      throw new InvalidInputError(given.map((f) => `${f}: ${message}`).join('; '), given.map((field) => ({ field, message })));
    }
    if (from.remote !== undefined && from.package !== undefined) {
      throw new InvalidInputError('fromCatalog: name a remote or a package, not both', [{ field: 'fromCatalog', message: 'name a remote or a package, not both' }]);
    }
    if (from.package !== undefined && principal.type !== 'admin') {
      throw new ForbiddenError("fromCatalog.package: a tenant's server cannot run a command on the registry's machines; instantiate a remote");
    }
    const inputs = checkInputs(from.inputs);
    const scope = principal.type === 'tenant' ? catalogScopeOf(principal) : dto.tenantId ? { tenantId: dto.tenantId } : {};
    const entry = await this.entries.findVersion(scope, from.name, from.version ?? 'latest');
    if (!entry) {
      const message = from.version ? `has no version ${from.version} in the catalog` : 'is not in the catalog';
      throw new InvalidInputError(`fromCatalog.name: ${message}`, [{ field: from.version ? 'fromCatalog.version' : 'fromCatalog.name', message }]);
    }
    const server = entry.serverJson as ServerJson;
    const made = instantiate(server, { remote: from.remote, package: from.package }, inputs);
    if (!made.registration) throw new InvalidInputError(made.errors.map((e) => `${e.field}: ${e.message}`).join('; '), made.errors);
    const reg = made.registration;
    const plain = {
      ...Object.fromEntries(Object.entries(dto).filter(([k, v]) => k !== 'fromCatalog' && v !== undefined)),
      name: dto.name ?? server.name.slice(server.name.indexOf('/') + 1),
      transport: reg.transport,
      ...(reg.url ? { url: reg.url } : {}),
      ...(reg.command ? { command: reg.command, args: reg.args ?? [] } : {}),
      ...(reg.env ? { env: reg.env } : {}),
      ...(reg.headers || dto.headers ? { headers: { ...reg.headers, ...dto.headers } } : {}),
      ...(reg.credentials ? { credentials: reg.credentials } : {}),
      metadata: { ...dto.metadata, [CATALOG_NAME_LABEL]: entry.name, [CATALOG_VERSION_LABEL]: entry.version },
    };
    // The same checks as a registration written by hand (header names, URL, lengths): inputs are the caller's text.
    return (await this.pipe.transform(plain, { type: 'body', metatype: CreateServerDto })) as CreateServerDto;
  }
}
