# SPDX-License-Identifier: BSD-3-Clause
"""MkDocs hooks (mkdocs.yml): the site is docs/ plus the repository's root
documents, so the links between them work on the site as they do in the
repository and in an installation (share/compi holds README.md next to
docs/).  README.md becomes the home page; THIRD-PARTY.md, CONTRIBUTING.md,
CHANGELOG.md and LICENSE sit beside the docs pages.  The Markdown files are
not changed: their links are rewritten for the site only (docs/x.md from a
root document is x.md on the site; ../X.md from a docs page is X.md)."""
import os
import re

from mkdocs.structure.files import File

ROOT_DOCS = ("README.md", "THIRD-PARTY.md", "CONTRIBUTING.md", "CHANGELOG.md", "LICENSE")
_TO_DOCS = re.compile(r"\]\(docs/")
_TO_ROOT = re.compile(r"\]\(\.\./(%s)" % "|".join(re.escape(n) for n in ROOT_DOCS))


def _root(config):
    return os.path.dirname(os.path.abspath(config["config_file_path"]))


def on_files(files, config):
    root = _root(config)
    for name in ROOT_DOCS:
        if os.path.exists(os.path.join(root, name)):
            files.append(File(name, root, config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_path in ROOT_DOCS:
        return _TO_DOCS.sub("](", markdown)
    return _TO_ROOT.sub(r"](\1", markdown)
