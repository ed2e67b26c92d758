https://example.com/
this is a key list, not a filter
