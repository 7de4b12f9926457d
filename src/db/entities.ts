import { ApiKey } from '../modules/api-keys/api-key.entity.js';
import { CreditEntry } from '../modules/credits/credit-entry.entity.js';
import { InventoryItem } from '../modules/inventory/inventory-item.entity.js';
import { Organisation } from '../modules/organisations/organisation.entity.js';
import { Place } from '../modules/places/place.entity.js';
import { Project } from '../modules/projects/project.entity.js';

/** Every entity the ORM knows. New modules add theirs here. */
export const entities = [Organisation, ApiKey, CreditEntry, Project, Place, InventoryItem];
