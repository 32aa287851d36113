/* SPDX-License-Identifier: BSD-3-Clause */
/* compi map: the network a placement is priced on, from --hosts and
 * `compi calibrate network`'s model (place.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/errf.h"
#include "map/place_internal.h"

void compi_map_net_free(compi_map_net *net)
{
    free(net->names);
    free(net->slots);
    free(net->slots_hwloc);
    free(net->lat_us);
    free(net->us_per_byte);
    memset(net, 0, sizeof *net);
}

int compi_map_net_slots(const compi_map_net *net)
{
    int s = 0;
    for (int i = 0; i < net->nnodes; i++) s += net->slots[i];
    return s;
}

static void pl_link(const compi_net_link *l, double *lat, double *upb)
{
    *lat = l->alpha_us;
    *upb = (l->npoints ? l->beta_ns[l->npoints - 1] : 0) * 1e-3;
}

int compi_map_net_build(compi_map_net *net, const char *hosts, const compi_net_model *model, char *err, size_t errlen)
{
    memset(net, 0, sizeof *net);
    if (!hosts || !*hosts) {
        compi_errf(err, errlen, "--hosts: empty host list");
        return COMPI_MAP_EARG;
    }
    int cap = 1;
    for (const char *s = hosts; *s; s++) cap += *s == ',';
    net->names = calloc((size_t)cap, sizeof *net->names);
    net->slots = calloc((size_t)cap, sizeof *net->slots);
    net->slots_hwloc = calloc((size_t)cap, sizeof *net->slots_hwloc);
    if (!net->names || !net->slots || !net->slots_hwloc) {
        compi_map_net_free(net);
        return COMPI_MAP_ENOMEM;
    }
    const char *s = hosts;
    while (1) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char item[256];
        if (len == 0 || len >= sizeof item) {
            compi_errf(err, errlen, "--hosts: empty or overlong entry in '%s'", hosts);
            compi_map_net_free(net);
            return COMPI_MAP_EARG;
        }
        memcpy(item, s, len);
        item[len] = 0;
        char *colon = strchr(item, ':');
        long slots = 1;
        /* no ":S": the node's cores when the network file describes it (hwloc) */
        const compi_net_node *nd = !colon && model ? compi_net_node_find(model, item) : NULL;
        if (nd) slots = nd->cores;
        if (colon) {
            *colon = 0;
            if (compi_place_num(colon + 1, &slots) != 0 || slots < 1 || slots > 1 << 20) {
                compi_errf(err, errlen, "--hosts: '%s': slots must be a positive number", s);
                compi_map_net_free(net);
                return COMPI_MAP_EARG;
            }
        }
        if (!item[0] || strlen(item) >= COMPI_NET_NAME_MAX) {
            compi_errf(err, errlen, "--hosts: bad host name in '%.*s'", (int)len, s);
            compi_map_net_free(net);
            return COMPI_MAP_EARG;
        }
        for (int i = 0; i < net->nnodes; i++)
            if (strcmp(net->names[i], item) == 0) {
                compi_errf(err, errlen, "--hosts: host '%s' listed twice", item);
                compi_map_net_free(net);
                return COMPI_MAP_EARG;
            }
        snprintf(net->names[net->nnodes], COMPI_NET_NAME_MAX, "%s", item);
        net->slots_hwloc[net->nnodes] = nd && !colon;
        net->slots[net->nnodes++] = (int)slots;
        if (!end) break;
        s = end + 1;
    }
    int k = net->nnodes;
    net->lat_us = calloc((size_t)k * k, sizeof *net->lat_us);
    net->us_per_byte = calloc((size_t)k * k, sizeof *net->us_per_byte);
    if (!net->lat_us || !net->us_per_byte) {
        compi_map_net_free(net);
        return COMPI_MAP_ENOMEM;
    }
    compi_net_model dflt;
    compi_net_default(&dflt);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            compi_link_class cls = i == j ? COMPI_LINK_INTRA : COMPI_LINK_INTER;
            const compi_net_link *l = model ? compi_net_find(model, cls, net->names[i], net->names[j]) : NULL;
            if (!l) l = compi_net_find(&dflt, cls, net->names[i], net->names[j]);
            if (!l) l = compi_net_find(&dflt, cls, NULL, NULL);
            pl_link(l, &net->lat_us[i * k + j], &net->us_per_byte[i * k + j]);
        }
    compi_net_free(&dflt);
    return 0;
}
