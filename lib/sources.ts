// The catalogue of upstream sources as the API shows them: label, description, country. The names
// themselves and the alias are in index-mappings/sources.ts.
import type { SourceName } from '../index-mappings/sources.js';

export interface SourceInfo {
  name: SourceName;
  label: string;
  description: string;
  country: string;
}

export const SOURCES: Record<SourceName, SourceInfo> = {
  ted: {
    name: 'ted',
    label: 'TED — Tenders Electronic Daily',
    description: 'EU public procurement notices (eForms): contract notices and award notices for Greek buyers.',
    // The notices served are those concerning Greece; clients validate the code against the other sources'.
    country: 'GR',
  },
  diavgeia: {
    name: 'diavgeia',
    label: 'Δι@ύγεια — Diavgeia transparency portal',
    description: 'Decisions of Greek public bodies: awards, expenditure approvals, payments, appointments.',
    country: 'GR',
  },
  elstat: {
    name: 'elstat',
    label: 'ΕΛΣΤΑΤ — Hellenic Statistical Authority',
    description: 'Official statistics for Greece (GDP, unemployment, prices) as time-series releases.',
    country: 'GR',
  },
  rae: {
    name: 'rae',
    label: 'ΡΑΑΕΥ — Regulatory Authority for Energy',
    description: 'Energy licences and their status (photovoltaic, wind, hydro) from the regulator geoportal.',
    country: 'GR',
  },
  data_gov_gr: {
    name: 'data_gov_gr',
    label: 'data.gov.gr — Greek open data portal',
    description: 'Open datasets published by Greek public bodies.',
    country: 'GR',
  },
  mitos: {
    name: 'mitos',
    label: 'ΜΙΤΟΣ — National Registry of Administrative Procedures',
    description: 'Administrative procedures: steps, required documents, costs and legal basis.',
    country: 'GR',
  },
  kimdis: {
    name: 'kimdis',
    label: 'ΚΗΜΔΗΣ — Central Electronic Registry of Public Contracts',
    description: 'Greek public contracts, requests, notices and payments (also known as e_procurement).',
    country: 'GR',
  },
  geodata: {
    name: 'geodata',
    label: 'geodata.gov.gr — Greek geospatial data',
    description: 'Geospatial datasets and layers published by Greek public bodies.',
    country: 'GR',
  },
};
