import type { Insertable } from 'kysely';
import type { UsersTable } from './db/schema.js';

/** What a new user is created with; what is left out is stored empty. */
export interface NewUser {
  instanceId: number;
  name: string;
  email: string;
  role: string;
  title?: string | undefined;
  alternateEmail?: string | undefined;
  phone?: string | undefined;
  location?: string | undefined;
  timezone?: string | undefined;
  locale?: string | undefined;
  /** Decimal digits (see UsersTable). */
  employeeNumber?: string | undefined;
}

/** The row of a new user (the API's users and the Admin each instance starts with), created `now`. */
export function newUserRow(user: NewUser, now: number): Insertable<UsersTable> {
  return {
    instance_id: user.instanceId,
    name: user.name,
    email: user.email,
    role: user.role,
    role_id: null,
    title: user.title ?? null,
    alternate_email: user.alternateEmail ?? null,
    phone: user.phone ?? null,
    location: user.location ?? null,
    timezone: user.timezone ?? null,
    locale: user.locale ?? null,
    employee_number: user.employeeNumber ?? null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
}
