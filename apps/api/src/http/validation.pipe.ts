import { FieldError, InvalidInputError } from '@app/domain';
import { ValidationError, ValidationPipe } from '@nestjs/common';

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
 * Validates every body and query against its DTO: unknown fields, wrong types
 * and out-of-range values are a 400 naming each field.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fields = flatten(errors);
      const detail = fields.map((f) => `${f.field}: ${f.message}`).join('; ') || 'the request is invalid';
      return new InvalidInputError(detail, fields);
    },
  });
}
