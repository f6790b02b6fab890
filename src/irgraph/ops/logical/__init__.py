"""Ops of OpenVINO's 'logical' spec category."""
