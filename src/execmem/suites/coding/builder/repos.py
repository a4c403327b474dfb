"""The real libraries behind the built-in task set: exact sdists, where their code and tests are.

Each sdist ships its own test suite, verified to run offline in a venv holding
only the pinned test dependencies below (the library itself is imported from
the episode's copy).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

PYTEST = "pytest==8.3.3"
COVERAGE = "coverage==7.6.1"


class RepoSpec(BaseModel):
    """One library: which sdist, which files may get bugs, which tests judge them."""

    package: str
    version: str
    sha256: str
    mutate: list[str] = Field(description="globs (from the sdist root) of modules that may get a bug")
    exclude: list[str] = Field(default_factory=list, description="globs never mutated")
    tests: list[str] = Field(description="test folders or files, as given to pytest")
    pytest_args: list[str] = Field(default_factory=list)
    requirements: list[str] = Field(default_factory=list, description="pinned test dependencies")
    no_deps: list[str] = Field(default_factory=list, description="installed without their dependencies")
    pythonpath: str = Field(default="", description="folder holding the package, when not the root")

    @property
    def repo(self) -> str:
        return f"pypi/{self.package}"

    @property
    def install(self) -> list[str]:
        """The venv's install commands (a spec is a venv ``Recipe``)."""
        pip = "python -m pip install --quiet --disable-pip-version-check"
        commands = [f"{pip} {' '.join([PYTEST, COVERAGE, *self.requirements])}"]
        if self.no_deps:
            commands.append(f"{pip} --no-deps {' '.join(self.no_deps)}")
        return commands

    def env(self) -> dict[str, str]:
        """Fixed hash seed (set and dict orders, hence failure messages, repeat); the package folder."""
        values = {"PYTHONHASHSEED": "0"}
        if self.pythonpath:
            values["PYTHONPATH"] = f"{{repo}}/{self.pythonpath}"
        return values

    def source(self) -> dict[str, str]:
        return {"kind": "pypi-sdist", "package": self.package, "version": self.version, "sha256": self.sha256}


BUILTIN_REPOS: tuple[RepoSpec, ...] = (
    RepoSpec(
        package="toolz",
        version="0.12.1",
        sha256="ecca342664893f177a13dac0e6b41cbd8ac25a358e5f215316d43e2100224f4d",
        mutate=["toolz/itertoolz.py", "toolz/functoolz.py", "toolz/dicttoolz.py", "toolz/recipes.py"],
        tests=["toolz/tests"],
    ),
    RepoSpec(
        package="cachetools",
        version="5.5.0",
        sha256="2cc24fb4cbe39633fb7badd9db9ca6295d766d9c2995f245725a46715d050f2a",
        mutate=["src/cachetools/*.py"],
        tests=["tests"],
        pythonpath="src",
    ),
    RepoSpec(
        package="parse",
        version="1.20.2",
        sha256="b41d604d16503c79d81af5165155c0b20f6c8d6c559efa66b4b695c3e5a0a0ce",
        mutate=["parse.py"],
        tests=["tests"],
    ),
    RepoSpec(
        package="inflection",
        version="0.5.1",
        sha256="1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
        mutate=["inflection/*.py"],
        tests=["test_inflection.py"],
    ),
    RepoSpec(
        package="more-itertools",
        version="10.5.0",
        sha256="5482bfef7849c25dc3c6dd53a6173ae4795da2a41a80faea6700d9f5846c5da6",
        mutate=["more_itertools/more.py", "more_itertools/recipes.py"],
        tests=["tests"],
    ),
    RepoSpec(
        package="sqlparse",
        version="0.5.1",
        sha256="bb6b4df465655ef332548e24f08e205afc81b9ab86cb1c45657a7ff173a3a00e",
        mutate=["sqlparse/*.py", "sqlparse/engine/*.py", "sqlparse/filters/*.py"],
        exclude=["sqlparse/keywords.py", "sqlparse/__main__.py"],
        tests=["tests"],
    ),
    RepoSpec(
        package="boltons",
        version="24.0.0",
        sha256="7153feccaea1ff2e1472f68d4b57fadb796a2ee49d29f638f1c9cd8fb5ebd916",
        mutate=["boltons/*.py"],
        exclude=[
            "boltons/socketutils.py",
            "boltons/debugutils.py",
            "boltons/gcutils.py",
            "boltons/ecoutils.py",
        ],
        tests=["tests"],
    ),
    RepoSpec(
        package="python-dateutil",
        version="2.9.0.post0",
        sha256="37dd54208da7e1cd875388217d5e00ebd4179249f90fb72437e91a35459a0ad3",
        mutate=["src/dateutil/*.py", "src/dateutil/parser/*.py", "src/dateutil/tz/*.py"],
        exclude=["src/dateutil/tz/win.py", "src/dateutil/tzwin.py", "src/dateutil/_version.py"],
        tests=["tests"],
        pytest_args=["--ignore=tests/property"],
        requirements=["six==1.16.0", "pytest-cov==5.0.0"],
        no_deps=["freezegun==1.5.1"],
        pythonpath="src",
    ),
)


def select_repos(names: list[str] | None) -> list[RepoSpec]:
    """The built-in specs named (all when ``names`` is empty); an unknown name lists the valid ones."""
    if not names:
        return list(BUILTIN_REPOS)
    known = {spec.package: spec for spec in BUILTIN_REPOS}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"unknown repo(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return [known[name] for name in names]
