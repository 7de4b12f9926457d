import { LockMode } from '@mikro-orm/core';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import {
  InvalidTransitionError,
  NotFoundError,
  invalidReferences,
  unknownReference,
  type FieldIssue,
} from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import { TASK_TRANSITIONS, type TaskStatus } from './task-transitions.js';
import type { AlertService } from '../alerts/alert.service.js';
import type { EventService } from '../events/event.service.js';
import { User } from '../members/member.entity.js';
import { InventoryItem } from '../inventory/inventory-item.entity.js';
import { Place } from '../places/place.entity.js';
import { Product } from '../products/product.entity.js';
import type { ProjectService } from '../projects/project.service.js';
import { complianceGrade, complianceScore } from './compliance.js';
import { Task } from './task.entity.js';
import { serializeTask, type CreateTaskInput, type TaskDetail, type UpdateTaskInput } from './task.schemas.js';
import type { TaskChange, TaskChangeResult } from '../../temporal/contracts/task.js';
import type { TaskRepository } from './task.repository.js';

export type TaskPolicy = { lowComplianceGrade: 'A' | 'B' | 'C' | 'D'; priceMismatchShare: number };

/** What TaskService uses (src/services.ts builds it once per process). */
export type TaskServiceDeps = {
  em: EntityManager;
  projects: ProjectService;
  events: EventService;
  alerts: AlertService;
  policy: TaskPolicy;
};

const GRADE_ORDER = ['F', 'D', 'C', 'B', 'A'];

export class TaskService {
  readonly repo: TaskRepository;

  private readonly em: EntityManager;
  private readonly projects: ProjectService;
  private readonly events: EventService;
  private readonly alerts: AlertService;
  private readonly policy: TaskPolicy;

  constructor({ em, projects, events, alerts, policy }: TaskServiceDeps) {
    this.em = em;
    this.projects = projects;
    this.events = events;
    this.alerts = alerts;
    this.policy = policy;
    this.repo = em.getRepository<Task, TaskRepository>(Task);
  }

  private async placeName(em: EntityManager, placeId: string | null | undefined): Promise<string | null> {
    if (!placeId) return null;
    return (await em.findOne(Place, { id: placeId }, { fields: ['title'] }))?.title ?? null;
  }

  async detail(task: Task, em: EntityManager = this.em): Promise<TaskDetail> {
    return serializeTask(task, await this.placeName(em, task.placeId));
  }

  /** A page of tasks with their place names from one query, not one per task. */
  async details(tasks: Task[]): Promise<TaskDetail[]> {
    const ids = [...new Set(tasks.map((t) => t.placeId).filter((id): id is string => !!id))];
    const names = new Map(
      ids.length
        ? (await this.em.find(Place, { id: { $in: ids } }, { fields: ['title'] })).map((p) => [p.id, p.title])
        : [],
    );
    return tasks.map((t) => serializeTask(t, (t.placeId && names.get(t.placeId)) || null));
  }

  /** Place and expectations must belong to the organisation: 422 on the field otherwise. */
  private async checkReferences(
    organisationId: string,
    input: {
      placeId?: string | null;
      assignedTo?: string | null;
      expectationIds?: string[];
      projectId?: string | null;
    },
  ) {
    const issues: FieldIssue[] = [];
    if (input.placeId && !(await this.em.findOne(Place, { id: input.placeId, organisationId }, { fields: ['id'] }))) {
      issues.push(unknownReference('placeId', 'place', input.placeId));
    }
    // Like every other reference in a body: an id of another organisation, or of nobody, is a 422.
    if (
      input.assignedTo &&
      !(await this.em.findOne(User, { id: input.assignedTo, organisationId }, { fields: ['id'] }))
    ) {
      issues.push(unknownReference('assignedTo', 'member', input.assignedTo));
    }
    if (input.expectationIds?.length) {
      const found = new Set(
        (
          await this.em.find(InventoryItem, { organisationId, id: { $in: input.expectationIds } }, { fields: ['id'] })
        ).map((i) => i.id),
      );
      input.expectationIds.forEach((id, i) => {
        if (!found.has(id)) issues.push(unknownReference(`expectationIds[${i}]`, 'inventory item', id));
      });
    }
    if (issues.length) throw invalidReferences(issues);
    await this.projects.assertExists(organisationId, input.projectId);
  }

  /** Writes the task and its task.created event in one transaction. */
  async create(organisationId: string, input: CreateTaskInput): Promise<{ task: Task; eventId: string }> {
    await this.checkReferences(organisationId, input);
    return this.em.transactional(async (em) => {
      const task = em.create(Task, {
        id: newId('task'),
        organisationId,
        projectId: input.projectId ?? null,
        title: input.title,
        description: input.description ?? null,
        notes: input.notes ?? null,
        placeId: input.placeId ?? null,
        assignedTo: input.assignedTo ?? null,
        dueDate: input.dueDate ?? null,
        expectationIds: [...new Set(input.expectationIds ?? [])],
      });
      await em.flush();
      const event = await this.events.record(em, {
        organisationId,
        type: 'task.created',
        dedupeKey: `task.created:${task.id}`,
        data: {
          taskId: task.id,
          title: task.title,
          placeId: task.placeId ?? null,
          status: 'pending',
          createdAt: task.createdAt.toISOString(),
        },
      });
      return { task, eventId: event.id };
    });
  }

  list(
    organisationId: string,
    filters: { status?: TaskStatus; placeId?: string; assignedTo?: string; projectId?: string },
    page: Page,
  ) {
    const where: FilterQuery<Task> = {};
    if (filters.status) where.status = filters.status;
    if (filters.placeId) where.placeId = filters.placeId;
    if (filters.assignedTo) where.assignedTo = filters.assignedTo;
    if (filters.projectId) where.projectId = filters.projectId;
    return this.repo.page(organisationId, where, page);
  }

  async get(organisationId: string, id: string): Promise<Task> {
    const task = await this.repo.findInOrg(organisationId, id);
    if (!task) throw new NotFoundError('task', id);
    return task;
  }

  async checkChange(organisationId: string, id: string, change: UpdateTaskInput): Promise<void> {
    await this.get(organisationId, id);
    await this.checkReferences(organisationId, change);
  }

  /**
   * Applies a change under a row lock: refuses a transition the state machine forbids, records
   * task.updated with the fields that changed, and task.completed when it completes.
   */
  async applyChange(
    taskId: string,
    change: Omit<TaskChange, 'actor'> & {
      generationId?: string;
      complianceScore?: number | null;
      complianceGrade?: string | null;
    },
    actor: string | null,
  ): Promise<TaskChangeResult> {
    return this.em.transactional(async (em) => {
      const task = await em.findOneOrFail(Task, { id: taskId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const updated: string[] = [];
      if (change.status !== undefined && change.status !== task.status) {
        const allowed = TASK_TRANSITIONS[task.status as TaskStatus];
        if (!allowed.includes(change.status))
          throw new InvalidTransitionError('task', task.status, change.status, allowed);
        task.status = change.status;
        updated.push('status');
        if (change.status === 'completed') {
          task.completedAt = new Date();
          task.completedBy = actor;
          updated.push('completedAt', 'completedBy');
        }
      }
      const assign = <K extends keyof Task>(key: K, value: Task[K] | undefined) => {
        if (value === undefined || JSON.stringify(task[key] ?? null) === JSON.stringify(value ?? null)) return;
        task[key] = value;
        updated.push(key as string);
      };
      assign('title', change.title);
      assign('placeId', change.placeId);
      assign('assignedTo', change.assignedTo);
      assign('dueDate', change.dueDate);
      assign('notes', change.notes);
      assign('description', change.description);
      assign('expectationIds', change.expectationIds ? [...new Set(change.expectationIds)] : undefined);
      assign('generationId', change.generationId);
      assign(
        'complianceScore',
        change.complianceScore === undefined
          ? undefined
          : change.complianceScore === null
            ? null
            : change.complianceScore.toFixed(1),
      );
      assign('complianceGrade', change.complianceGrade);
      await em.flush();
      const eventIds: string[] = [];
      if (updated.length > 0) {
        const sequence = await this.events.taskUpdateCount(em, task.organisationId, task.id);
        const e = await this.events.record(em, {
          organisationId: task.organisationId,
          type: 'task.updated',
          dedupeKey: `task.updated:${task.id}:${sequence + 1}`,
          data: { taskId: task.id, title: task.title, status: task.status, updatedFields: updated },
        });
        eventIds.push(e.id);
        if (updated.includes('status') && task.status === 'completed') {
          const done = await this.events.record(em, {
            organisationId: task.organisationId,
            type: 'task.completed',
            dedupeKey: `task.completed:${task.id}`,
            data: {
              taskId: task.id,
              title: task.title,
              placeId: task.placeId ?? null,
              generationId: task.generationId ?? null,
              complianceScore: task.complianceScore == null ? null : Number(task.complianceScore),
            },
          });
          eventIds.push(done.id);
        }
      }
      return { task: await this.detail(task, em), eventIds, dueDate: task.dueDate ?? null };
    });
  }

  /** The task as it is now, or null once deleted: what its workflow re-reads after a step failed. */
  async view(taskId: string): Promise<TaskDetail | null> {
    const task = await this.em.findOne(Task, { id: taskId });
    return task ? this.detail(task) : null;
  }

  /** An analysis for this task was submitted: a pending task is now in progress. */
  async startFromAnalysis(taskId: string): Promise<TaskChangeResult | null> {
    const task = await this.em.findOne(Task, { id: taskId });
    if (!task || task.status !== 'pending') return null;
    return this.applyChange(taskId, { status: 'in_progress' }, null);
  }

  /**
   * The task's analysis completed: compliance from its matched products, the task completed, and
   * the alerts its findings call for. Idempotent: a completed task only gets what is missing.
   */
  async completeFromAnalysis(taskId: string, analysisId: string): Promise<TaskChangeResult | null> {
    const task = await this.em.findOne(Task, { id: taskId });
    if (!task) return null;
    const items = await this.em.find(InventoryItem, { id: { $in: task.expectationIds } });
    const products = await this.em.find(Product, { analysisId });
    const matchedSkus = new Set(
      products.filter((p) => p.matchStatus === 'matched' && p.matchedInventorySku).map((p) => p.matchedInventorySku!),
    );
    const found = new Set(items.filter((i) => matchedSkus.has(i.sku)).map((i) => i.id));
    const score = complianceScore(task.expectationIds, found);
    const grade = complianceGrade(score);
    let result: TaskChangeResult | null;
    if (task.status === 'pending' || task.status === 'in_progress') {
      result = await this.applyChange(
        taskId,
        { status: 'completed', generationId: analysisId, complianceScore: score, complianceGrade: grade },
        null,
      );
    } else {
      // decisions.md: the task records the analysis and its score, and changes status only if not
      // already final; a task completed or cancelled by hand keeps its status.
      result = await this.applyChange(
        taskId,
        { generationId: analysisId, complianceScore: score, complianceGrade: grade },
        null,
      );
    }
    await this.em.transactional(async (em) => {
      for (const item of items.filter((i) => !found.has(i.id))) {
        await this.alerts.raise(em, {
          organisationId: task.organisationId,
          type: 'out_of_stock',
          severity: 'warning',
          title: `Out of stock: ${item.name}`,
          message: `${item.brand} ${item.name} (${item.sku}) was expected but not found on the shelf.`,
          sourceType: 'task',
          sourceId: task.id,
          placeId: task.placeId,
          metadata: { taskId: task.id, analysisId, inventoryItemId: item.id, sku: item.sku },
          dedupeKey: `out_of_stock:${task.id}:${item.id}`,
        });
      }
      if (grade && GRADE_ORDER.indexOf(grade) < GRADE_ORDER.indexOf(this.policy.lowComplianceGrade)) {
        await this.alerts.raise(em, {
          organisationId: task.organisationId,
          type: 'low_compliance',
          severity: grade === 'F' ? 'critical' : 'warning',
          title: `Low compliance: ${task.title}`,
          message: `Compliance ${score}% (grade ${grade}) on task ${task.title}.`,
          sourceType: 'task',
          sourceId: task.id,
          placeId: task.placeId,
          metadata: {
            taskId: task.id,
            analysisId,
            complianceScore: score,
            complianceGrade: grade,
            missing: items.filter((i) => !found.has(i.id)).map((i) => i.sku),
          },
        });
      }
      const bySku = new Map(items.map((i) => [i.sku, i]));
      for (const p of products) {
        const item = p.matchedInventorySku ? bySku.get(p.matchedInventorySku) : undefined;
        if (!item?.expectedPrice || p.price == null) continue;
        const seen = Number(p.discountedPrice ?? p.price);
        const expected = Number(item.expectedPrice);
        if (Math.abs(seen - expected) > expected * this.policy.priceMismatchShare) {
          await this.alerts.raise(em, {
            organisationId: task.organisationId,
            type: 'price_mismatch',
            severity: 'warning',
            title: `Price mismatch: ${item.name}`,
            message: `${item.name} is priced ${seen.toFixed(2)}, expected ${expected.toFixed(2)}.`,
            sourceType: 'analysis',
            sourceId: analysisId,
            placeId: task.placeId,
            metadata: { taskId: task.id, sku: item.sku, seenPrice: seen, expectedPrice: expected },
            dedupeKey: `price_mismatch:${analysisId}:${item.sku}`,
          });
        }
      }
    });
    return result;
  }

  /** The due date passed with the task still open: one task_overdue alert per task and due date. */
  async raiseOverdue(taskId: string): Promise<boolean> {
    return this.em.transactional(async (em) => {
      const task = await em.findOne(Task, { id: taskId });
      if (!task || !task.dueDate || task.status === 'completed' || task.status === 'cancelled') return false;
      const { created } = await this.alerts.raise(em, {
        organisationId: task.organisationId,
        type: 'task_overdue',
        severity: 'warning',
        title: `Overdue: ${task.title}`,
        message: `Task ${task.title} was due on ${task.dueDate} and is still ${task.status}.`,
        sourceType: 'task',
        sourceId: task.id,
        placeId: task.placeId,
        metadata: { taskId: task.id, dueDate: task.dueDate, assignedTo: task.assignedTo ?? null },
        dedupeKey: `task_overdue:${task.id}:${task.dueDate}`,
      });
      return created;
    });
  }

  async delete(organisationId: string, id: string): Promise<void> {
    const task = await this.get(organisationId, id);
    await this.em.remove(task).flush();
  }

  async markWorkflowStarted(taskId: string): Promise<void> {
    await this.repo.markWorkflowStarted(taskId);
  }
}
