/**
 * Who is who, and who may do what (ADR 0012): `people:` joins a person's Slack user IDs and
 * Kubernetes user names into one person (the two-person rule counts persons), and the identity lists
 * `approval.approvers` and `approval.proposers` name Slack users and groups, Kubernetes users and
 * groups, and persons by name. The checks that span sections (a person named in a list exists, an
 * identity belongs to one person) are `peopleProblems`, run by the top-level schema.
 */
import { z } from 'zod';
import { checkedText, describeValue, slackId } from './fields.js';
import { suggestionHint } from './suggest.js';

const PERSON_NAME = /^[a-z][a-z0-9._-]{0,62}$/;
/** Names kubemaint itself acts under; a person by that name would be confused with it. */
const RESERVED_NAMES = ['kubemaint', 'executor', 'detector'];

const personName = checkedText((text) => {
  if (!PERSON_NAME.test(text)) {
    return {
      message: `${describeValue(text)} is not a person's name: a lowercase letter, then lowercase letters, digits, '.', '_' or '-' (at most 63)`,
      hint: 'e.g. alice or bob.smith',
    };
  }
  if (RESERVED_NAMES.includes(text)) {
    return {
      message: `"${text}" is kubemaint's own name for itself`,
      hint: 'give the person another name',
    };
  }
  return undefined;
});

/** Control characters (C0 and DEL): never part of a name, and they could rewrite a terminal. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A user name or group as the apiserver authenticates it (kubemaint adds the `k8s:` itself). */
const kubernetesName = (what: 'user' | 'group') =>
  checkedText((text) => {
    if (text.startsWith('k8s:')) {
      return {
        message: `${describeValue(text)} starts with "k8s:", which kubemaint adds itself`,
        hint: `write ${describeValue(text.slice(4))}`,
      };
    }
    if (text === '*') {
      return {
        message: '"*" is not a Kubernetes name',
        hint: 'for everyone the cluster authenticates, list the group system:authenticated',
      };
    }
    if (text === '' || text.trim() !== text || CONTROL.test(text) || text.length > 253) {
      return {
        message: `${describeValue(text)} is not a Kubernetes ${what} name`,
        hint:
          what === 'user'
            ? 'as the apiserver authenticates it, e.g. alice, alice@example.com or system:serviceaccount:ops:deployer'
            : 'as the apiserver authenticates it, e.g. sre or system:authenticated',
      };
    }
    return undefined;
  });

const slackUsers = () => z.array(slackId('user', 'UW', 'U0123ABC')).default([]);

export const PersonSchema = z.strictObject({
  name: personName,
  /** The person's Slack user IDs. */
  slack: slackUsers(),
  /** The person's Kubernetes user names, as the apiserver authenticates them. */
  kubernetes: z.array(kubernetesName('user')).default([]),
});

export const PeopleSchema = z.array(PersonSchema).default([]);

/** The identity lists of `approval.approvers` and `approval.proposers`. */
const identityShape = {
  /** Slack user IDs. */
  users: slackUsers(),
  /** Slack user group IDs. */
  groups: z.array(slackId('user group', 'S', 'S0123ABC')).default([]),
  kubernetes: z
    .strictObject({
      users: z.array(kubernetesName('user')).default([]),
      groups: z.array(kubernetesName('group')).default([]),
    })
    .prefault({}),
  /** Names from `people:`; each of their identities is listed. */
  people: z.array(personName).default([]),
};

/** `approval.approvers.cli` (turn 1): refused with what replaced it. */
const removedCli = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value === undefined) return;
    ctx.addIssue({
      code: 'custom',
      message: 'was removed: the CLI now acts as your Kubernetes identity',
      params: {
        hint: 'list Kubernetes users under approval.approvers.kubernetes.users (or groups under .groups; system:authenticated for anyone the cluster authenticates)',
      },
    });
  })
  .optional();

export const ApproversSchema = z.strictObject({ ...identityShape, cli: removedCli }).prefault({});
export const ProposersSchema = z.strictObject(identityShape).prefault({});

type Person = z.output<typeof PersonSchema>;
type IdentityLists = z.output<typeof ProposersSchema>;

interface Issue {
  path: (string | number)[];
  message: string;
  hint: string;
}

/**
 * What `people:` and the identity lists get wrong together: two persons by one name, one identity
 * claimed by two persons, a list naming a person `people:` does not have.
 */
export function peopleProblems(
  people: readonly Person[],
  lists: Readonly<Record<'approvers' | 'proposers', IdentityLists | undefined>>,
): Issue[] {
  const issues: Issue[] = [];
  const names = new Map<string, number>();
  const owner = new Map<string, string>();
  people.forEach((person, i) => {
    const first = names.get(person.name);
    if (first !== undefined) {
      issues.push({
        path: ['people', i, 'name'],
        message: `"${person.name}" is already the name of people[${first}]`,
        hint: 'each person is listed once: merge the two entries',
      });
    } else names.set(person.name, i);
    const claim = (id: string, path: (string | number)[], shown: string): void => {
      const other = owner.get(id);
      if (other !== undefined && other !== person.name) {
        issues.push({
          path,
          message: `${shown} is listed for both ${other} and ${person.name}`,
          hint: 'an identity belongs to one person: keep it under one of them',
        });
      } else owner.set(id, person.name);
    };
    person.slack.forEach((id, j) => claim(id, ['people', i, 'slack', j], `Slack user ${id}`));
    person.kubernetes.forEach((user, j) =>
      claim(
        `k8s:${user}`,
        ['people', i, 'kubernetes', j],
        `Kubernetes user ${describeValue(user)}`,
      ),
    );
  });
  const known = [...names.keys()];
  for (const key of ['approvers', 'proposers'] as const) {
    (lists[key]?.people ?? []).forEach((name, i) => {
      if (names.has(name)) return;
      const hint = suggestionHint(name, known);
      issues.push({
        path: ['approval', key, 'people', i],
        message: `"${name}" is not a person listed under people:`,
        hint: hint ?? 'add the person under people: with their Slack and Kubernetes identities',
      });
    });
  }
  return issues;
}

/** Identity (`U…`, `k8s:<user>`) → person name, from `people:`. */
export function identitiesOf(people: readonly Person[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const person of people) {
    for (const id of person.slack) map[id] = person.name;
    for (const user of person.kubernetes) map[`k8s:${user}`] = person.name;
  }
  return map;
}

/** An identity list as the core checks it: Slack IDs as they are, Kubernetes ones as `k8s:<name>`. */
export function identityList(
  list: IdentityLists,
  people: readonly Person[],
): { users: string[]; groups: string[] } {
  const persons = people.filter((p) => list.people.includes(p.name));
  const users = [
    ...list.users,
    ...list.kubernetes.users.map((u) => `k8s:${u}`),
    ...persons.flatMap((p) => [...p.slack, ...p.kubernetes.map((u) => `k8s:${u}`)]),
  ];
  return {
    users: [...new Set(users)],
    groups: [...list.groups, ...list.kubernetes.groups.map((g) => `k8s:${g}`)],
  };
}
