import { FieldError, InvalidInputError } from '@app/domain';
import { ValidationError, ValidationPipe } from '@nestjs/common';

/**
 * One message per field: a field left out is "is required"; otherwise the message of its first rule (the
 * type check, declared first: class-validator lists constraints last-declared first), since the later rules
 * (length, pattern) say nothing useful about a value of the wrong type.
 */
function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const messages = Object.values(e.constraints ?? {});
    if (messages.length > 0) {
      const message = e.value === undefined ? 'is required' : messages[messages.length - 1];
      out.push({ field, message: message.startsWith(`${e.property} `) ? message.slice(e.property.length).trim() : message });
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
    // The value is read only to tell a missing field; it is never put in the answer (it may be a secret).
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => {
      const fields = flatten(errors);
      const detail = fields.map((f) => `${f.field}: ${f.message}`).join('; ') || 'the request is invalid';
      return new InvalidInputError(detail, fields);
    },
  });
}
