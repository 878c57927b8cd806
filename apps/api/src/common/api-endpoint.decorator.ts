import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiResponseNoStatusOptions } from '@nestjs/swagger';
import { ApiProblems } from './api-problems.decorator';

/** The success answer of an endpoint that has a body: its schema (or a description) and an example. */
export type SuccessAnswerDoc = ApiResponseNoStatusOptions;

/**
 * The documentation of one REST endpoint, in one place: what it does, its success answer (exactly one of
 * `ok`, `created`, `accepted`, `noContent`) and the problems it can give besides the 401 that every
 * authenticated endpoint can (ApiAuthenticated).
 */
export interface EndpointDoc {
  summary: string;
  description?: string;
  /** 200 with a body. */
  ok?: SuccessAnswerDoc;
  /** 201 with a body: what was made. */
  created?: SuccessAnswerDoc;
  /** 202 with a body: the work is queued. */
  accepted?: SuccessAnswerDoc;
  /** 204 without a body; the description of the answer ("Deleted"). */
  noContent?: string;
  problems?: number[];
}

function successOf(doc: EndpointDoc): { status: 200 | 201 | 202 | 204; options: SuccessAnswerDoc } {
  if (doc.noContent !== undefined) return { status: 204, options: { description: doc.noContent } };
  if (doc.created) return { status: 201, options: doc.created };
  if (doc.accepted) return { status: 202, options: doc.accepted };
  if (doc.ok) return { status: 200, options: doc.ok };
  throw new Error(`the endpoint "${doc.summary}" documents no success answer`);
}

/**
 * Documents an endpoint (its operation, success answer and problems) and answers with the documented success
 * status, so that /docs and the answers cannot disagree on it.
 */
export function ApiEndpoint(doc: EndpointDoc): MethodDecorator {
  const success = successOf(doc);
  return applyDecorators(
    HttpCode(success.status),
    ApiOperation(doc.description === undefined ? { summary: doc.summary } : { summary: doc.summary, description: doc.description }),
    ApiResponse({ ...success.options, status: success.status } as ApiResponseNoStatusOptions & { status: number }),
    ApiProblems(...(doc.problems ?? [])),
  );
}
