import { canonicalId } from '@app/domain';
import { applyDecorators, Param, PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsUUID, ValidationOptions } from 'class-validator';
import { EXAMPLE_IDS } from './api-examples';

/**
 * Path ids are read as every id is (canonicalId): a UUID in any case names its record in lower case. What is
 * not a UUID is left as it came: no record has it, so the service answers 404 for it as for any unknown id.
 */
export class IdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    return canonicalId(value) ?? value;
  }
}

/** A path parameter read by `param` and documented in /docs by `doc`, both from the same place. */
export function DocumentedParam(param: ParameterDecorator, doc: MethodDecorator): ParameterDecorator {
  return (target, key, index) => {
    param(target, key, index);
    if (key !== undefined) doc(target, key, Object.getOwnPropertyDescriptor(target, key)!);
  };
}

/**
 * A path parameter that holds an id of `what`, read with IdPipe and documented in /docs (a description and
 * an example) from the same place.
 */
export function IdParam(name: string, what = 'the resource', example: string = EXAMPLE_IDS.server): ParameterDecorator {
  return DocumentedParam(
    Param(name, new IdPipe()),
    ApiParam({
      name,
      description: `The id of ${what}: a UUID, read in any letter case`,
      schema: { type: 'string', format: 'uuid' },
      example,
    }),
  );
}

/** The `id` path parameter of /api/v1/servers/{id} and what is below it: a server's id. */
export const ServerIdParam = (): ParameterDecorator => IdParam('id', 'the server (the serverId of the RPC API)');

/** A body or query field that holds an id (or, with `each`, ids): a UUID, any case, taken in lower case; else a 400. */
export function IsEntityId(validationOptions?: ValidationOptions): PropertyDecorator {
  const each = validationOptions?.each === true;
  const canonical = (v: unknown) => canonicalId(v) ?? v;
  return applyDecorators(
    Transform(({ value }) => (each && Array.isArray(value) ? value.map(canonical) : canonical(value))),
    IsUUID('all', { message: (args) => `${args.property} must be an id (a UUID)`, ...validationOptions }),
  );
}
