import { parseKind, parseStatus } from '@app/domain';
import { applyDecorators } from '@nestjs/common';
import { IsNotEmpty, IsString, Matches, MaxLength, registerDecorator, ValidateIf, ValidationArguments, ValidationOptions } from 'class-validator';

/** Keys that would reach an object's prototype if ever assigned naively. */
const POISONED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export interface StringRecordOptions {
  maxEntries: number;
  maxKeyLength: number;
  maxValueLength: number;
  keyPattern?: RegExp;
  keyRule?: string;
  /** Keys refused with their reason, compared case-insensitively. */
  reservedKeys?: Record<string, string>;
  /** Values may not hold line breaks (header values). */
  singleLine?: boolean;
}

function recordProblem(value: unknown, o: StringRecordOptions): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object of string values';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > o.maxEntries) return `must have at most ${o.maxEntries} entries`;
  for (const [k, v] of entries) {
    if (POISONED_KEYS.has(k)) return `must not have the key "${k}"`;
    if (k.length === 0 || k.length > o.maxKeyLength) return `keys must be 1 to ${o.maxKeyLength} characters`;
    if (o.keyPattern && !o.keyPattern.test(k)) return `key "${k.slice(0, 64)}" is not ${o.keyRule ?? 'valid'}`;
    const reserved = o.reservedKeys?.[k.toLowerCase()];
    if (reserved) return `must not set "${k}": ${reserved}`;
    if (typeof v !== 'string') return `value of "${k.slice(0, 64)}" must be a string`;
    if (v.length > o.maxValueLength) return `value of "${k.slice(0, 64)}" must be at most ${o.maxValueLength} characters`;
    if (o.singleLine && /[\r\n\0]/.test(v)) return `value of "${k.slice(0, 64)}" must not contain line breaks`;
  }
  return undefined;
}

/** An object mapping strings to strings, bounded in size, with safe keys. */
export function IsStringRecord(options: StringRecordOptions, validationOptions?: ValidationOptions): PropertyDecorator {
  return (object, propertyName) =>
    registerDecorator({
      name: 'isStringRecord',
      target: object.constructor,
      propertyName: propertyName as string,
      options: validationOptions,
      validator: {
        validate: (value: unknown) => recordProblem(value, options) === undefined,
        defaultMessage: (args: ValidationArguments) => `${args.property} ${recordProblem(args.value, options) ?? 'is invalid'}`,
      },
    });
}

function wireEnum(name: string, parse: (v: unknown) => unknown, names: string): (o?: ValidationOptions) => PropertyDecorator {
  return (validationOptions) => (object, propertyName) =>
    registerDecorator({
      name,
      target: object.constructor,
      propertyName: propertyName as string,
      options: validationOptions,
      validator: {
        validate: (value: unknown) => (typeof value === 'string' || typeof value === 'number') && parse(value) !== undefined,
        defaultMessage: (args: ValidationArguments) => `${args.property} must be one of ${names}, or its number`,
      },
    });
}

/** A server kind: its canonical name (MCP_SERVER_KIND_CUSTOM), short name (CUSTOM) or number (3). */
export const IsWireKind = wireEnum('isWireKind', parseKind, 'MCP_SERVER_KIND_INTERNAL, _BUILT_IN, _CUSTOM, _EXTERNAL, _INTEGRATION');

/** A connection status: its canonical name, short name or number. */
export const IsWireStatus = wireEnum(
  'isWireStatus',
  parseStatus,
  'MCP_SERVER_CONNECTION_STATUS_CONNECTED, _DISCONNECTED, _ERROR, _DISCOVERING',
);

/** An absolute http(s) URL of bounded length. */
export function IsHttpUrl(validationOptions?: ValidationOptions): PropertyDecorator {
  return (object, propertyName) =>
    registerDecorator({
      name: 'isHttpUrl',
      target: object.constructor,
      propertyName: propertyName as string,
      options: validationOptions,
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || value.length > 2048) return false;
          try {
            const u = new URL(value);
            // A user name or password in a URL would be returned and logged with it: secrets go in credentials.
            return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname.length > 0 && !u.username && !u.password;
          } catch {
            return false;
          }
        },
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be an absolute http(s) URL of at most 2048 characters, without a user name or password (those go in credentials)`,
      },
    });
}

/** Free text without control characters (names, labels). */
export const PRINTABLE = /^[^\p{Cc}]*$/u;

/**
 * A resource's name: a non-empty string of at most `maxLength` characters, without control characters.
 * Listed in the order a stack of these decorators is applied (bottom first), so that the type check stays
 * the rule whose message a refusal shows (see validation.pipe).
 */
export function IsResourceName(maxLength: number): PropertyDecorator {
  return applyDecorators(Matches(PRINTABLE, { message: 'name must not contain control characters' }), MaxLength(maxLength), IsNotEmpty(), IsString());
}

/** Like @IsOptional(), but only for a missing field: an explicit null is still validated (and refused). */
export function IsOptionalNotNull(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined, validationOptions);
}
