"""The gettext catalogs, shipped in the package: ``<lang>/LC_MESSAGES/messages.po`` (and the
``.mo`` compiled from them when the package is built)."""
