"""The errors a command reports as ``error: <message>`` (exit 2): each is raised for bad input or
an unusable environment, with a message that already names the file, line, field or option."""

from __future__ import annotations

from execmem.core.files import DamagedFileError
from execmem.core.jsonl import JsonlError
from execmem.llm.cache import CacheError
from execmem.llm.errors import EndpointError, InfraError
from execmem.llm.token_counter import TokenizerError
from execmem.memory import MemoryRegistryError, MemorySetupError, MissingExtraError
from execmem.report.errors import ReportError
from execmem.runs.episode_log import RunFolderError
from execmem.runs.executors.base import ExecutorError
from execmem.runs.identity import CompareError
from execmem.runs.vehicle.conditions import ConditionError
from execmem.suites.coding.builder.build import BuildError
from execmem.suites.coding.frozen import FrozenFileError
from execmem.suites.coding.gitrepo import GitError
from execmem.suites.coding.pypi import SdistError
from execmem.suites.coding.records import RecordError
from execmem.suites.coding.sandbox.config import SandboxUnavailable
from execmem.suites.coding.sources import SourceError
from execmem.suites.coding.tasks import TaskFileError
from execmem.suites.coding.venvs import VenvBuildError
from execmem.suites.vehicle.calls import CallSyntaxError
from execmem.suites.vehicle.dataset import DatasetError
from execmem.suites.vehicle.evidence import EvidenceError
from execmem.suites.vehicle.release import DataNotFound, FetchError
from execmem.suites.vehicle.scorebook import InputError

KNOWN_ERRORS: tuple[type[Exception], ...] = (
    JsonlError,
    CallSyntaxError,
    InputError,
    DatasetError,
    DataNotFound,
    FetchError,
    EvidenceError,
    RunFolderError,
    DamagedFileError,
    CompareError,
    ConditionError,
    MemoryRegistryError,
    MissingExtraError,
    MemorySetupError,
    InfraError,
    CacheError,
    EndpointError,
    ExecutorError,
    TokenizerError,
    TaskFileError,
    RecordError,
    FrozenFileError,
    SandboxUnavailable,
    SdistError,
    VenvBuildError,
    BuildError,
    SourceError,
    GitError,
    ReportError,
)
