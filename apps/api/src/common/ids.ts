import { canonicalId } from '@app/domain';
import { applyDecorators, Param, PipeTransform } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsUUID, ValidationOptions } from 'class-validator';

/**
 * Path ids are read as every id is (canonicalId): a UUID in any case names its record in lower case. What is
 * not a UUID is left as it came: no record has it, so the service answers 404 for it as for any unknown id.
 */
export class IdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    return canonicalId(value) ?? value;
  }
}

/** A path parameter that holds an id. */
export function IdParam(name: string): ParameterDecorator {
  return Param(name, new IdPipe());
}

/** A body or query field that holds an id (or, with `each`, ids): a UUID, any case, taken in lower case; else a 400. */
export function IsEntityId(validationOptions?: ValidationOptions): PropertyDecorator {
  const each = validationOptions?.each === true;
  const canonical = (v: unknown) => canonicalId(v) ?? v;
  return applyDecorators(
    Transform(({ value }) => (each && Array.isArray(value) ? value.map(canonical) : canonical(value))),
    IsUUID('all', { message: (args) => `${args.property} must be an id (a UUID)`, ...validationOptions }),
  );
}
