import { ConfigError } from '@app/config';
import { FieldError, ServerKind } from '@app/domain';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { CreateServerDto } from './server.dto';
import { connectionErrors, credentialsErrors } from './server.rules';

/** One legacy registration of EXTERNAL_SERVERS_FILE: the fields of a registration, without kind or owner. */
export type ExternalRegistration = Omit<CreateServerDto, 'kind' | 'tenantId'>;

const MAX_ENTRIES = 1000;

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    for (const message of Object.values(e.constraints ?? {})) {
      out.push({ field, message: message.startsWith(e.property) ? message.slice(e.property.length).trim() : message });
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

/**
 * Reads EXTERNAL_SERVERS_FILE's text: a JSON array of registrations, each held
 * to the same rules as one made through the API (less the kind, which is
 * EXTERNAL, and the owner, which is the platform). Any fault stops the start
 * with a message naming the entry and the field, never a value.
 */
export function parseExternalServersFile(text: string, envAllow: readonly string[]): ExternalRegistration[] {
  const fail = (message: string): never => {
    throw new ConfigError(`EXTERNAL_SERVERS_FILE: ${message}`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail('is not valid JSON');
  }
  if (!Array.isArray(parsed)) fail('must hold a JSON array of server registrations');
  const entries = parsed as unknown[];
  if (entries.length > MAX_ENTRIES) fail(`holds more than ${MAX_ENTRIES} servers`);
  const names = new Set<string>();
  return entries.map((raw, index) => {
    const where = `entry ${index}`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(`${where} must be an object`);
    const entry = raw as Record<string, unknown>;
    for (const field of ['kind', 'tenantId']) {
      if (field in entry) fail(`${where}: ${field} is not part of an external registration (they are EXTERNAL and belong to the platform)`);
    }
    const dto = plainToInstance(CreateServerDto, entry);
    const errors = flatten(validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }));
    const label = typeof entry.name === 'string' ? `${where} ("${entry.name.slice(0, 80)}")` : where;
    if (errors.length === 0) {
      const connection = { transport: dto.transport, url: dto.url ?? null, command: dto.command ?? null, args: dto.args ?? [], env: dto.env ?? {} };
      errors.push(...connectionErrors(ServerKind.EXTERNAL, connection), ...credentialsErrors(ServerKind.EXTERNAL, dto.credentials, envAllow));
    }
    if (errors.length > 0) fail(`${label}: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
    dto.name = dto.name.trim();
    if (!dto.name) fail(`${where}: name: must not be blank`);
    if (names.has(dto.name)) fail(`${label}: name: is used by an earlier entry`);
    names.add(dto.name);
    return dto;
  });
}
