/** What avbtool's commands do, as a library: footers added and erased, vbmeta images made. */
package org.jverity.avb.tool;
