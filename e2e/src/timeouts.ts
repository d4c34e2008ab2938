// Real servers answer in seconds, not milliseconds: workspace creation and
// binding take several seconds on two cores, and beforeAll hooks do several.
import { jest } from "@jest/globals";

jest.setTimeout(180_000);
