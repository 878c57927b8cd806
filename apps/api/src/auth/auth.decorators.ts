import { ForbiddenError, Principal, UnauthenticatedError } from '@app/domain';
import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';

export const IS_PUBLIC = 'auth:public';
export const ADMIN_ONLY = 'auth:admin-only';

/** A route that needs no key (health, docs). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** A route only the platform administrator may call: a tenant key gets 403. */
export const AdminOnly = (): MethodDecorator & ClassDecorator => SetMetadata(ADMIN_ONLY, true);

export type AuthenticatedRequest = Request & { principal?: Principal };

/** The caller, as the guard authenticated it. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new UnauthenticatedError('an API key is required: send Authorization: Bearer <key>');
  return principal;
});

export function assertAdmin(principal: Principal, action: string): void {
  if (principal.type !== 'admin') throw new ForbiddenError(`only the platform administrator may ${action}`);
}
