import { z } from 'zod';
import { dataEnvelope, defineRoute } from '../../http/route.js';
import { PLAN_TIERS } from '../organisations/organisation.entity.js';
import type { UsageService } from './usage.service.js';

const window = z.object({ limit: z.number().int(), remaining: z.number().int(), resetAt: z.iso.datetime() });

export const usageSchema = z
  .object({
    maxBatchSize: z.number().int().meta({
      description:
        "The most images one batch can hold for this key: the plan's batch size, or the analyses rate limit when that is lower.",
    }),
    credits: z.object({
      remaining: z.number().int(),
      usedThisPeriod: z
        .number()
        .int()
        .meta({ description: 'Credits charged for analyses this plan period and not refunded.' }),
      plan: z.number().int().meta({ description: 'Plan credits left this period (spent first).' }),
      payg: z.number().int().meta({ description: 'Pay-as-you-go credits left.' }),
    }),
    plan: z.object({
      tier: z.enum(PLAN_TIERS),
      periodStart: z.iso.datetime().meta({ description: 'When the current plan period began.' }),
      periodEnd: z.iso.datetime().meta({
        description:
          "When the current plan period ends: unused plan credits expire and the plan's monthly credits are granted (pay-as-you-go credits stay).",
      }),
      monthlyCredits: z
        .number()
        .int()
        .meta({ description: 'Plan credits granted at each period start (after a plan change: the new plan’s).' }),
      maxBatchSize: z
        .number()
        .int()
        .meta({ description: "The plan's nominal batch size (decisions.md: free 20 … scale 200)." }),
    }),
    rateLimits: z
      .object({ analyses: window, reads: window, writes: window })
      .meta({ description: "The caller's rolling 60-second windows: the API key's, or the signed-in member's." }),
  })
  .meta({ id: 'Usage' });

export const dailyUsageSchema = z
  .object({
    days: z.number().int(),
    from: z.iso.date(),
    to: z.iso.date().meta({ description: 'Today (UTC).' }),
    series: z.array(
      z.object({
        date: z.iso.date(),
        submitted: z.number().int().meta({ description: 'Analyses submitted that day (UTC).' }),
        completed: z.number().int().meta({ description: 'Of those, completed by now.' }),
        failed: z.number().int().meta({ description: 'Of those, failed by now (their credits refunded).' }),
        processing: z.number().int().meta({ description: 'Of those, still processing.' }),
      }),
    ),
  })
  .meta({ id: 'DailyUsage' });

export const dailyUsageQuery = z.strictObject({
  days: z.coerce.number().int().min(1).max(90).default(30).meta({ description: 'How many days, today included.' }),
});

export function usageRoutes(usage: UsageService) {
  return [
    defineRoute({
      method: 'get',
      path: '/usage',
      operationId: 'getUsage',
      summary: 'Credit balance, plan, batch size and live rate-limit windows',
      tag: 'Usage',
      status: 200,
      response: dataEnvelope(usageSchema),
      handler: async ({ auth }) => ({ body: { data: await usage.usage(auth.organisationId, auth.actorId) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/usage/daily',
      operationId: 'getDailyUsage',
      summary: 'Analyses submitted per day, and how they ended',
      tag: 'Usage',
      query: dailyUsageQuery,
      status: 200,
      response: dataEnvelope(dailyUsageSchema),
      handler: async ({ auth, query }) => ({ body: { data: await usage.daily(auth.organisationId, query.days) } }),
    }),
  ];
}
